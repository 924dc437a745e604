/**
 * An OAuth app as actor (docs/events.md, "Actors"), black-box on the read side: a command the app
 * sends for the owner is requested, moves the lock and succeeds with the app as actor on
 * GET /ext/events and the live stream (the task's origin carries the app to the movement), an
 * account change it makes too; a guest of the lock sees only the kind; the dashboard says "the app
 * «Name»", escaped. No OAuth token can be had yet: the events are made through the use cases, with
 * the actor an access token will give.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { oauthAppActor } from '../../../src/domain/event.ts';
import { FormClient } from '../../dashboard/support.ts';
import {
  LOCK_A,
  OTHER,
  OTHER_KEY,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { SseClient } from '../../support/sse.ts';

interface EventJson {
  id: string;
  type: string;
  actor: { kind: string; account_id?: string; key_prefix?: string; app_id?: string; app_name?: string };
  method: string | null;
  task_id: string | null;
  data: Record<string, unknown>;
}

const APP_ID = 'app_0123456789abcdef';
const APP_NAME = 'Home <Helper> & "Co"';

async function events(t: TestServer, query: string, key = OWNER_KEY): Promise<EventJson[]> {
  const res = await t.request(`/ext/events${query}`, { key });
  const body = (await res.json()) as { events: EventJson[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.events;
}

describe('an OAuth app as the actor of events', () => {
  let t: TestServer;
  let ownerId: string;
  let taskId: string;
  let stream: SseClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    const owner = await t.server.store.accounts.findByEmail(OWNER);
    assert.ok(owner);
    ownerId = owner.id;
    stream = await SseClient.open(`${t.url}/ext/events/stream`, { authorization: OWNER_KEY });
    assert.equal(stream.status, 200);
    const actor = oauthAppActor(APP_ID, APP_NAME, ownerId);
    const task = await t.server.lockcloud.commands.send(ownerId, LOCK_A, 'unlock', {
      actor,
      method: 'api_ext',
    });
    taskId = task.id;
    assert.equal((await waitForTask(t, taskId)).successful, true);
    // A hand turn back: the device's, with no app fields.
    await simLockOk(t, LOCK_A, { locked: true });
    await t.server.lockcloud.webhooks.set(
      ownerId,
      { url: 'http://127.0.0.1:9/hook', method: 'POST', retries: false },
      actor,
    );
  });
  after(async () => {
    stream?.close();
    await t?.close();
  });

  it('names the app, by id and by name, and the user on the command, the movement it causes and an account change', async () => {
    const expected = { kind: 'oauth_app', account_id: ownerId, app_id: APP_ID, app_name: APP_NAME };
    const mine = (await events(t, `?device_id=${LOCK_A}`)).filter((e) => e.task_id === taskId);
    assert.deepEqual(
      mine.map((e) => [e.type, e.method, e.actor]),
      [
        ['command.requested', 'api_ext', expected],
        ['lock.unlocked', 'api_ext', expected],
        ['command.succeeded', 'api_ext', expected],
      ],
    );
    const hook = (await events(t, '?type=webhook.')).find((e) => e.type === 'webhook.updated');
    assert.deepEqual(hook?.actor, expected);
  });

  it('sends the same actor on the live stream', async () => {
    const streamed = await stream.waitForEvents(4, 'the app’s four events on the stream');
    const unlocked = streamed.find((e) => e.type === 'lock.unlocked');
    assert.deepEqual(unlocked?.actor, {
      kind: 'oauth_app',
      account_id: ownerId,
      app_id: APP_ID,
      app_name: APP_NAME,
    });
  });

  it('leaves the app fields out for other actors, and shows a guest of the lock only the kind', async () => {
    const turn = (await events(t, `?device_id=${LOCK_A}`)).find((e) => e.type === 'lock.locked');
    assert.deepEqual(turn?.actor, { kind: 'device' });
    const guest = (await events(t, `?device_id=${LOCK_A}`, OTHER_KEY)).filter(
      (e) => e.type === 'lock.unlocked',
    );
    assert.deepEqual(
      guest.map((e) => [e.actor, e.task_id]),
      [[{ kind: 'oauth_app' }, null]],
    );
  });

  it('says the app by its name on the dashboard, escaped; a guest reads "An app"', async () => {
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    const page = await owner.get(`/dashboard/locks/${LOCK_A}/activity`);
    assert.equal(page.status, 200);
    const escaped = 'the app «Home &lt;Helper&gt; &amp; &quot;Co&quot;»';
    assert.ok(page.text.includes(`Unlocked by ${escaped} (ext)`), page.text);
    assert.ok(page.text.includes(`<td>The app «Home &lt;Helper&gt;`), 'the who column');
    assert.ok(!page.text.includes('<Helper>'), 'escaped');
    const guest = new FormClient(t);
    await guest.logIn(OTHER, 'other-password');
    const theirs = await guest.get(`/dashboard/locks/${LOCK_A}/activity`);
    assert.equal(theirs.status, 200);
    assert.ok(theirs.text.includes('Unlocked by an app (ext)'), theirs.text);
    assert.ok(!theirs.text.includes('Helper'), 'no app name for a guest');
  });
});
