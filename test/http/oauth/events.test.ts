/**
 * What an OAuth token does is the app's in the event log (issue 24 point 3): a command sent with a
 * token names the app (id and name) as actor, in /ext/events and on the live stream; authorizing
 * and withdrawing are events of the owner's account; and a stream opened with a token ends the
 * moment its consent is withdrawn or replaced.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sessionActor } from '../../../src/domain/event.ts';
import type { FormClient } from '../../dashboard/support.ts';
import {
  authorize,
  discover,
  exchange,
  type oauth,
  type RegisteredApp,
  registerApp,
  signedIn,
} from '../../support/oauth.ts';
import {
  LOCK_B,
  OTHER,
  OWNER,
  OWNER_KEY,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { SseClient } from '../../support/sse.ts';

describe('OAuth tokens in the event log and the live stream', () => {
  let t: TestServer;
  let as: oauth.AuthorizationServer;
  let browser: FormClient;
  let ownerId: string;
  before(async () => {
    t = await startServer();
    as = await discover(t);
    browser = await signedIn(t, OWNER, 'owner-password');
    ownerId = (await t.server.store.accounts.findByEmail(OWNER))?.id ?? '';
  });
  after(() => t.close());

  const tokenOf = async (app: RegisteredApp, scope: string): Promise<string> => {
    const { callback, verifier } = await authorize(t, browser, as, app, { scope });
    return (await exchange(as, app, callback, verifier)).access_token;
  };
  const events = async (query: string) => {
    const res = await t.request(`/ext/events?${query}`, { key: OWNER_KEY });
    assert.equal(res.status, 200);
    return (
      (await res.json()) as {
        events: { type: string; actor: Record<string, unknown>; data: Record<string, unknown> }[];
      }
    ).events;
  };

  it('names the app as the actor of its commands, and logs the authorization', async () => {
    const app = await registerApp(t, OTHER, { name: 'Night mode' });
    const token = await tokenOf(app, 'locks:operate events:read');
    const [authorized] = await events('type=oauth_app.authorized');
    assert.deepEqual(authorized?.actor, { kind: 'dashboard_session', account_id: ownerId });
    assert.equal(authorized?.data.app_id, app.app.id);
    assert.equal(authorized?.data.app_name, 'Night mode');
    assert.deepEqual(authorized?.data.scopes, ['locks:operate', 'events:read']);

    const sent = await t.request(`/public/lock/${LOCK_B}`, {
      method: 'POST',
      key: `Bearer ${token}`,
      json: { command: 'lock' },
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    const { task_id: taskId } = (await sent.json()) as { task_id: string };
    await waitForTask(t, taskId);
    const requested = (await events(`device_id=${LOCK_B}&type=command.requested`)).find(
      (e) => e.data.command === 'lock',
    );
    assert.deepEqual(requested?.actor, {
      kind: 'oauth_app',
      account_id: ownerId,
      app_id: app.app.id,
      app_name: 'Night mode',
    });
    // The token reads the same log, itself as actor.
    const own = await t.request(`/ext/events?device_id=${LOCK_B}&type=command.requested`, {
      key: `Bearer ${token}`,
    });
    assert.equal(own.status, 200);
  });

  it('ends a stream opened with a token when the owner withdraws the consent; a key’s stream goes on', async () => {
    const app = await registerApp(t, OTHER, { name: 'Watcher' });
    const token = await tokenOf(app, 'events:read locks:read');
    const doomed = await SseClient.open(`${t.url}/ext/events/stream`, { authorization: `Bearer ${token}` });
    const other = await SseClient.open(`${t.url}/ext/events/stream`, { authorization: OWNER_KEY });
    await t.server.lockcloud.oauthConsents.withdraw(ownerId, app.app.id, sessionActor(ownerId));
    await doomed.waitForEnd();
    const last = doomed.frames.at(-1);
    assert.equal(last?.event, 'close');
    assert.equal((JSON.parse(last?.data ?? '{}') as { reason: string }).reason, 'unauthorized');
    const [revoked] = await other.waitForEvents(1);
    assert.equal(revoked?.type, 'oauth_app.revoked');
    assert.equal((revoked?.data as { app_id?: string } | undefined)?.app_id, app.app.id);
    assert.equal(other.ended, false);
    other.close();
  });

  it('ends a token’s stream when a new consent replaces its grant', async () => {
    const app = await registerApp(t, OTHER, { name: 'Regrant' });
    const token = await tokenOf(app, 'events:read');
    const stream = await SseClient.open(`${t.url}/ext/events/stream`, { authorization: `Bearer ${token}` });
    // The app asks for more: the owner is asked again, and the new consent replaces the old grant.
    await tokenOf(app, 'events:read locks:read');
    await stream.waitForEnd();
    assert.equal(
      (JSON.parse(stream.frames.at(-1)?.data ?? '{}') as { reason: string }).reason,
      'unauthorized',
    );
    assert.equal((await t.request('/ext/events', { key: `Bearer ${token}` })).status, 401);
  });

  it('tells each owner, in its log, that an app it authorized was deleted', async () => {
    const app = await registerApp(t, OTHER, { name: 'Gone soon' });
    await tokenOf(app, 'locks:read');
    const developer = (await t.server.store.accounts.findByEmail(OTHER))?.id ?? '';
    await t.server.lockcloud.oauthApps.delete(developer, app.app.id);
    const revoked = (await events('type=oauth_app.revoked')).find((e) => e.data.app_id === app.app.id);
    assert.deepEqual(revoked?.actor, { kind: 'system' });
    assert.equal(revoked?.data.reason, 'the app was deleted by its developer');
  });
});
