/**
 * /ext grants, black-box (issue 23, docs/locks.md "Grants"): the owner invites by e-mail, the guest
 * accepts or declines, the owner edits and revokes; the lock shows for the guest only while a grant
 * is accepted; every refusal in /ext's error shape, and every change an event in both logs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import {
  answerInvitation,
  deviceIdsOf,
  type GrantJson,
  GUEST,
  GUEST_KEY,
  grantSeed,
  invite,
  json,
  revoke,
  UNVERIFIED,
} from './grant-support.ts';
import { expectExtError } from './helpers.ts';

interface EventJson {
  type: string;
  device_id: string | null;
  actor: { kind: string; account_id?: string };
  data: Record<string, unknown>;
}

async function grantEventsOf(t: TestServer, key: string): Promise<EventJson[]> {
  const body = await json<{ events: EventJson[] }>(
    await t.request('/ext/events?type=grant.&limit=500', { key }),
    200,
    'grant events',
  );
  return body.events;
}

describe('/ext grants: invitations and answers', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
  });

  it('a pending grant shows no lock; accepting shows it; the owner sees every grant and its state', async () => {
    const grant = await invite(t, LOCK_B, { role: 'view' });
    assert.equal(grant.state, 'pending');
    assert.equal(grant.guest_email, GUEST);
    assert.match(grant.id, /^grt_[0-9a-f]{32}$/);
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), [], 'pending: no lock');
    const lockRes = await t.request(`/ext/locks/${LOCK_B}`, { key: GUEST_KEY });
    assert.equal(lockRes.status, 404, 'pending: the lock does not exist for the guest');
    const { invitations } = await json<{ invitations: GrantJson[] }>(
      await t.request('/ext/invitations', { key: GUEST_KEY }),
      200,
      'invitations',
    );
    assert.deepEqual(
      invitations.map((g) => [g.id, g.lock_nickname, g.lock_time_zone, g.owner_email, g.state]),
      [[grant.id, 'Back door', 'UTC', OWNER, 'pending']],
    );
    const accepted = await json<GrantJson>(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
    assert.equal(accepted.state, 'accepted');
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), [LOCK_B]);
    const mine = await json<{ grants: GrantJson[] }>(
      await t.request('/ext/grants', { key: GUEST_KEY }),
      200,
      'mine',
    );
    assert.deepEqual(
      mine.grants.map((g) => g.id),
      [grant.id],
    );
    const none = await json<{ invitations: GrantJson[] }>(
      await t.request('/ext/invitations', { key: GUEST_KEY }),
      200,
      'invitations after',
    );
    assert.deepEqual(none.invitations, []);
    const list = await json<{ grants: GrantJson[] }>(
      await t.request(`/ext/locks/${LOCK_B}/grants`, { key: OWNER_KEY }),
      200,
      'owner list',
    );
    assert.deepEqual(
      list.grants.map((g) => [g.id, g.state, g.guest_email]),
      [[grant.id, 'accepted', GUEST]],
    );
    // Giving it back: declined, and the lock is gone at once.
    const given = await json<GrantJson>(await answerInvitation(t, grant.id, 'decline'), 200, 'give back');
    assert.equal(given.state, 'declined');
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), []);
  });

  it('a declined invitation disappears; a withdrawn one cannot be accepted', async () => {
    const declined = await invite(t, LOCK_A, { role: 'operate' });
    await json(await answerInvitation(t, declined.id, 'decline'), 200, 'decline');
    const { invitations } = await json<{ invitations: GrantJson[] }>(
      await t.request('/ext/invitations', { key: GUEST_KEY }),
      200,
      'invitations',
    );
    assert.deepEqual(invitations, []);
    await expectExtError(
      await answerInvitation(t, declined.id, 'accept'),
      404,
      'NOT_FOUND',
      /no such invitation/,
      'accept a declined one',
    );
    // Invited again (a declined grant is replaced), then withdrawn by the owner before an answer.
    const again = await invite(t, LOCK_A, { role: 'operate' });
    assert.notEqual(again.id, declined.id);
    assert.equal((await revoke(t, LOCK_A, again.id)).status, 204);
    await expectExtError(
      await answerInvitation(t, again.id, 'accept'),
      404,
      'NOT_FOUND',
      /no such invitation/,
      'accept a withdrawn one',
    );
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), []);
  });

  it('revocation takes effect at once', async () => {
    const grant = await invite(t, OTHER_LOCK, { role: 'view' }, OTHER_KEY);
    await json(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), [OTHER_LOCK]);
    assert.equal((await t.request(`/ext/locks/${OTHER_LOCK}`, { key: GUEST_KEY })).status, 200);
    const res = await t.request(`/ext/locks/${OTHER_LOCK}/grants/${grant.id}`, {
      method: 'DELETE',
      key: OTHER_KEY,
    });
    assert.equal(res.status, 204);
    assert.deepEqual(await deviceIdsOf(t, GUEST_KEY), []);
    assert.equal((await t.request(`/ext/locks/${OTHER_LOCK}`, { key: GUEST_KEY })).status, 404);
    await expectExtError(
      await t.request(`/ext/locks/${OTHER_LOCK}/grants/${grant.id}`, { method: 'DELETE', key: OTHER_KEY }),
      400,
      'BAD_PARAMS',
      /revoked: there is nothing left to revoke/,
      'revoke twice',
    );
  });

  it('the owner edits the terms; the state stays', async () => {
    const grant = await invite(t, LOCK_A, { role: 'view' });
    const res = await t.request(`/ext/locks/${LOCK_A}/grants/${grant.id}`, {
      method: 'PATCH',
      key: OWNER_KEY,
      json: {
        role: 'operate',
        ends_at: '2099-01-01T00:00:00Z',
        schedule: [{ days: ['mon'], start: '08:00', end: '09:00' }],
      },
    });
    const edited = await json<GrantJson>(res, 200, 'edit');
    assert.deepEqual(
      [edited.state, edited.role, edited.ends_at, edited.schedule],
      ['pending', 'operate', '2099-01-01T00:00:00.000Z', [{ days: ['mon'], start: '08:00', end: '09:00' }]],
    );
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}/grants/${grant.id}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: { role: 'view', one_time: true },
      }),
      400,
      'BAD_PARAMS',
      /one_time: only an operate grant can be one-time/,
      'a view grant one-time',
    );
    assert.equal((await revoke(t, LOCK_A, grant.id)).status, 204);
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}/grants/${grant.id}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: { role: 'view' },
      }),
      400,
      'BAD_PARAMS',
      /the grant is revoked/,
      'edit a revoked grant',
    );
  });

  it('refuses, in the /ext shape: unknown e-mail, unverified, oneself, a live grant, bad body, not owner, unknown grant', async () => {
    const post = (json: unknown, key = OWNER_KEY, lock = LOCK_A) =>
      t.request(`/ext/locks/${lock}/grants`, { method: 'POST', key, json });
    const unknown = /email: no lockcloud account can be invited at that address/;
    await expectExtError(
      await post({ email: 'nobody@example.com', role: 'view' }),
      400,
      'BAD_PARAMS',
      unknown,
      'unknown e-mail',
    );
    await expectExtError(
      await post({ email: UNVERIFIED, role: 'view' }),
      400,
      'BAD_PARAMS',
      unknown,
      'unverified: the same answer',
    );
    await expectExtError(
      await post({ email: OWNER, role: 'view' }),
      400,
      'BAD_PARAMS',
      /you own this lock/,
      'oneself',
    );
    // LOCK_A's seed share is an accepted view grant of OTHER's.
    await expectExtError(
      await post({ email: OTHER, role: 'view' }),
      400,
      'BAD_PARAMS',
      /accepted grant of this lock already/,
      'a live grant',
    );
    await expectExtError(await post({ email: GUEST, role: 'admin' }), 400, 'BAD_PARAMS', /role/, 'bad role');
    await expectExtError(await post({ email: GUEST }), 400, 'BAD_PARAMS', /role/, 'no role');
    await expectExtError(
      await post({ email: GUEST, role: 'view', extra: 1 }),
      400,
      'BAD_PARAMS',
      /extra|additional/,
      'unknown field',
    );
    await expectExtError(
      await post({ email: GUEST, role: 'operate', ends_at: '2001-01-01T00:00:00Z' }),
      400,
      'BAD_PARAMS',
      /ends_at: must be in the future/,
      'ends in the past',
    );
    await expectExtError(
      await post({
        email: GUEST,
        role: 'operate',
        schedule: [{ days: ['mon'], start: '08:00', end: '08:00' }],
      }),
      400,
      'BAD_PARAMS',
      /schedule/,
      'empty schedule entry',
    );
    await expectExtError(
      await post({ email: GUEST, role: 'view' }, OTHER_KEY),
      404,
      'NOT_FOUND',
      /no such lock/,
      'a guest invites',
    );
    await expectExtError(
      await post({ email: GUEST, role: 'view' }, GUEST_KEY),
      404,
      'NOT_FOUND',
      /no such lock/,
      'a stranger invites',
    );
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}/grants`, { key: OTHER_KEY }),
      404,
      'NOT_FOUND',
      /no such lock/,
      'a guest lists',
    );
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}/grants/grt_nope`, { method: 'DELETE', key: OWNER_KEY }),
      404,
      'NOT_FOUND',
      /no such grant/,
      'unknown grant',
    );
    // A grant of another lock, named under this one, is not this lock's.
    const theirs = await invite(t, OTHER_LOCK, { role: 'view' }, OTHER_KEY);
    await expectExtError(
      await revoke(t, LOCK_A, theirs.id),
      404,
      'NOT_FOUND',
      /no such lock|no such grant/,
      'another lock',
    );
    await expectExtError(
      await answerInvitation(t, theirs.id, 'accept', OWNER_KEY),
      404,
      'NOT_FOUND',
      /no such invitation/,
      'not the guest',
    );
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}/grants/grt_nope`, { method: 'PATCH', key: OWNER_KEY, json: {} }),
      400,
      'BAD_PARAMS',
      /./,
      'an empty edit',
    );
    await expectExtError(
      await t.request('/ext/invitations/grt_nope/accept', { method: 'POST', key: GUEST_KEY }),
      404,
      'NOT_FOUND',
      /no such invitation/,
      'unknown invitation',
    );
    assert.equal(
      (await revoke(t, OTHER_LOCK, theirs.id)).status,
      404,
      'the owner of LOCK_A is no owner of OTHER_LOCK',
    );
  });

  it('every change is an event in the owner log and in the guest log', async () => {
    const grant = await invite(t, LOCK_B, { role: 'operate' });
    await json(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
    await json(
      await t.request(`/ext/locks/${LOCK_B}/grants/${grant.id}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: { one_time: true },
      }),
      200,
      'edit',
    );
    assert.equal((await revoke(t, LOCK_B, grant.id)).status, 204);
    for (const key of [OWNER_KEY, GUEST_KEY]) {
      const mine = (await grantEventsOf(t, key)).filter((e) => e.data.grant_id === grant.id);
      assert.deepEqual(
        mine.map((e) => [
          e.type,
          e.device_id ?? e.data.device_id,
          e.data.role,
          e.data.guest_id === undefined,
          e.actor.kind,
        ]),
        [
          ['grant.invited', LOCK_B, 'operate', false, 'api_key'],
          ['grant.accepted', LOCK_B, 'operate', false, 'api_key'],
          ['grant.changed', LOCK_B, 'operate', false, 'api_key'],
          ['grant.revoked', LOCK_B, 'operate', false, 'api_key'],
        ],
        key,
      );
    }
    // Nobody else reads them.
    const others = (await grantEventsOf(t, OTHER_KEY)).filter((e) => e.data.grant_id === grant.id);
    assert.deepEqual(others, []);
  });
});

describe('/ext grants: the invitation budget (rate limits on)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: grantSeed() });
  });
  after(async () => {
    await t.close();
  });

  it("spends the share form's budget: past 10 tries, 429 whether the address has an account or not", async () => {
    const post = (email: string) =>
      t.request(`/ext/locks/${LOCK_A}/grants`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { email, role: 'view' },
      });
    for (let i = 0; i < 10; i++) assert.equal((await post(`nobody${i}@example.com`)).status, 400, `try ${i}`);
    // The endpoint's own limit (10, then 1/s) refills first: the refusal is the budget's.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expectExtError(await post(GUEST), 429, 'THROTTLED', /too many shares/, 'an 11th try');
  });
});
