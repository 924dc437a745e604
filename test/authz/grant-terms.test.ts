/**
 * The authorization matrix's grant terms (issue 23): a guest's command on /ext through every kind of
 * grant that must not allow it (pending, view only, not started, outside the schedule, ended, a
 * one-time grant used, revoked, declined) is refused with its documented answer, and the refusal
 * changes no account's rows; v3 and v1 refuse an operate guest within its terms as they refuse any
 * guest (only owners control), changing nothing either.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3, type SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import {
  answerInvitation,
  type GrantJson,
  GUEST,
  GUEST_KEY,
  granted,
  grantSeed,
  invite,
  json,
  revoke,
} from '../http/ext/grant-support.ts';
import { login, v1 } from '../http/v1/helpers.ts';
import { seededDevicesReported } from '../support/seeded-devices.ts';
import { advanceClock, LOCK_B, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { changedAccounts, partitions } from './world.ts';

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

describe('authorization matrix: grant terms', () => {
  let t: TestServer;
  let db: SqliteConnection;
  before(async () => {
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
    db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
    await seededDevicesReported(db);
  });
  after(async () => {
    db.close();
    await t.close();
  });

  /** Sends the request, checks its answer, and that no account's rows changed. */
  async function refused(
    send: () => Promise<Response>,
    status: number,
    pattern: RegExp,
    what: string,
  ): Promise<void> {
    const before = partitions(db);
    const res = await send();
    const text = await res.text();
    assert.equal(res.status, status, `${what}: ${text}`);
    assert.match(text, pattern, what);
    assert.deepEqual(changedAccounts(before, partitions(db)), [], `${what}: a refusal changed rows`);
  }

  const command =
    (cmd = 'unlock') =>
    () =>
      t.request(`/ext/locks/${LOCK_B}/commands`, { method: 'POST', key: GUEST_KEY, json: { command: cmd } });

  const edit = async (grant: GrantJson, body: Record<string, unknown>) =>
    json<GrantJson>(
      await t.request(`/ext/locks/${LOCK_B}/grants/${grant.id}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: body,
      }),
      200,
      'edit',
    );

  const now = async () =>
    (await json<{ epoch_ms: number }>(await t.request('/_sim/clock'), 200, 'clock')).epoch_ms;

  it('refuses every grant that does not allow the command now, changing nothing', async () => {
    const pending = await invite(t, LOCK_B, { role: 'operate' });
    await refused(command(), 404, /"NOT_FOUND"/, 'pending');
    await json(await answerInvitation(t, pending.id, 'accept'), 200, 'accept');
    const grant = await edit(pending, { role: 'view' });
    await refused(command(), 403, /"ACCESS_DENY".*view only/, 'view');
    await edit(grant, { role: 'operate', starts_at: new Date((await now()) + 3_600_000).toISOString() });
    await refused(command(), 403, /has not started yet/, 'not yet');
    const today = WEEKDAYS[new Date(await now()).getUTCDay()];
    const otherDays = WEEKDAYS.filter((d) => d !== today);
    await edit(grant, { starts_at: null, schedule: [{ days: otherDays, start: '00:00', end: '24:00' }] });
    await refused(command(), 403, /outside the grant schedule/, 'outside the schedule');
    await edit(grant, { schedule: null, ends_at: new Date((await now()) + 60_000).toISOString() });
    await advanceClock(t, 120);
    await refused(command(), 403, /it ended/, 'ended');
    assert.equal((await revoke(t, LOCK_B, grant.id)).status, 204);
    await refused(command(), 404, /"NOT_FOUND"/, 'revoked');
    const declined = await invite(t, LOCK_B, { role: 'operate' });
    await json(await answerInvitation(t, declined.id, 'decline'), 200, 'decline');
    await refused(command(), 404, /"NOT_FOUND"/, 'declined');
  });

  it('a one-time grant used twice: the second unlock is refused and changes nothing', async () => {
    await granted(t, LOCK_B, { role: 'operate', one_time: true });
    const first = await json<{ task_id: string }>(await command()(), 202, 'first unlock');
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 100; i++) {
      const task = await json<{ status: string }>(
        await t.request(`/ext/tasks/${first.task_id}`, { key: GUEST_KEY }),
        200,
        'task',
      );
      if (task.status === 'terminated') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await refused(command(), 403, /one-time grant was used/, 'second unlock');
    await refused(command('lock'), 403, /one-time grant was used/, 'a lock after it');
  });

  it('v3 and v1 keep "only owners control" for an operate guest within its terms', async () => {
    const grant = await invite(t, LOCK_B, { role: 'operate', email: GUEST });
    await json(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
    await refused(
      () =>
        t.request(`/public/lock/${LOCK_B}`, { method: 'POST', key: GUEST_KEY, json: { command: 'unlock' } }),
      400,
      /BAD_PARAMS/,
      'v3',
    );
    const token = await login(t, GUEST, 'guest-password');
    await refused(
      () => v1(t, `/locks/${LOCK_B}/control`, { method: 'POST', token, json: { type: 'unlock' } }),
      403,
      /30000/,
      'v1',
    );
  });
});
