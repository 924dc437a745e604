/**
 * Guests' commands on /ext (issue 23, docs/locks.md "Grants"): an operate grant locks and unlocks
 * within its window and schedule, read on the sandbox clock and the lock's time zone (across a
 * daylight-saving change in Europe/Berlin); a view grant, a used one-time grant, a revoked or pending
 * one are refused; every use is an event with the grant as actor. The tests move the clock forward
 * only, in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import { LOCK_A, LOCK_B, OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import {
  answerInvitation,
  clockTo,
  type GrantJson,
  GUEST_KEY,
  granted,
  grantSeed,
  invite,
  json,
  revoke,
} from './grant-support.ts';
import { expectExtError } from './helpers.ts';

interface TaskJson {
  task_id: string;
  status: string;
  successful?: boolean;
  error?: string;
}

interface EventJson {
  type: string;
  method: string | null;
  task_id: string | null;
  actor: { kind: string; account_id?: string; grant_id?: string };
  data: Record<string, unknown>;
}

function command(t: TestServer, deviceId: string, cmd: string, key = GUEST_KEY): Promise<Response> {
  return t.request(`/ext/locks/${deviceId}/commands`, { method: 'POST', key, json: { command: cmd } });
}

/** A command that must be accepted, waited for to its end (the sandbox's lock answers at once). */
async function run(t: TestServer, deviceId: string, cmd: string, key = GUEST_KEY): Promise<TaskJson> {
  const task = await json<TaskJson>(await command(t, deviceId, cmd, key), 202, `${cmd} accepted`);
  return eventually(`task ${task.task_id}`, async () => {
    const read = await json<TaskJson>(await t.request(`/ext/tasks/${task.task_id}`, { key }), 200, 'task');
    return read.status === 'terminated' && read;
  });
}

const denied = (reason: RegExp) => async (res: Response, what: string) =>
  expectExtError(res, 403, 'ACCESS_DENY', reason, what);

describe('/ext commands through grants', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
  });

  it('the owner commands its lock; a view guest, a pending one and a stranger are refused', async () => {
    assert.equal((await run(t, LOCK_A, 'unlock', OWNER_KEY)).successful, true);
    assert.equal((await run(t, LOCK_A, 'lock', OWNER_KEY)).successful, true);
    // LOCK_A's seed share: an accepted view grant of the other account.
    await denied(/view only/)(await command(t, LOCK_A, 'unlock', OTHER_KEY), 'view guest');
    await expectExtError(await command(t, LOCK_A, 'unlock'), 404, 'NOT_FOUND', /no such lock/, 'no grant');
    const pending = await invite(t, LOCK_A, { role: 'operate' });
    await expectExtError(await command(t, LOCK_A, 'unlock'), 404, 'NOT_FOUND', /no such lock/, 'pending');
    assert.equal((await revoke(t, LOCK_A, pending.id)).status, 204);
    await expectExtError(
      await command(t, LOCK_A, 'open', OWNER_KEY),
      400,
      'BAD_PARAMS',
      /command/,
      'unknown command',
    );
  });

  it('an operate guest unlocks; the events name the grant; revocation stops it at once', async () => {
    const grant = await granted(t, LOCK_B, { role: 'operate' });
    // LOCK_B is seeded unlocked: the guest locks it.
    const unlocked = await run(t, LOCK_B, 'lock');
    assert.equal(unlocked.successful, true);
    const res = await t.request(`/ext/events?device_id=${LOCK_B}&limit=500`, { key: OWNER_KEY });
    const { events } = (await res.json()) as { events: EventJson[] };
    const mine = events.filter((e) => e.task_id === unlocked.task_id);
    assert.deepEqual(
      mine.map((e) => [e.type, e.method, e.actor.kind, e.actor.grant_id]),
      [
        ['command.requested', 'api_ext', 'grant', grant.id],
        ['lock.locked', 'api_ext', 'grant', grant.id],
        ['command.succeeded', 'api_ext', 'grant', grant.id],
      ],
    );
    assert.ok(
      mine.every((e) => typeof e.actor.account_id === 'string'),
      'the guest is named',
    );
    // The owner reads the guest's task; another account does not.
    assert.equal((await t.request(`/ext/tasks/${unlocked.task_id}`, { key: OWNER_KEY })).status, 200);
    await expectExtError(
      await t.request(`/ext/tasks/${unlocked.task_id}`, { key: OTHER_KEY }),
      404,
      'NOT_FOUND',
      /no such task/,
      'another account',
    );
    assert.equal((await revoke(t, LOCK_B, grant.id)).status, 204);
    await expectExtError(await command(t, LOCK_B, 'unlock'), 404, 'NOT_FOUND', /no such lock/, 'revoked');
  });

  it('a one-time grant ends with its unlock: used twice, the second is refused', async () => {
    const grant = await granted(t, LOCK_B, { role: 'operate', one_time: true });
    // A lock or sync does not use it up.
    assert.equal((await run(t, LOCK_B, 'sync')).successful, true);
    assert.equal((await run(t, LOCK_B, 'unlock')).successful, true);
    await denied(/one-time grant was used/)(await command(t, LOCK_B, 'unlock'), 'second unlock');
    await denied(/one-time grant was used/)(await command(t, LOCK_B, 'lock'), 'any command after');
    const mine = await json<{ grants: GrantJson[] }>(
      await t.request('/ext/grants', { key: GUEST_KEY }),
      200,
      'mine',
    );
    assert.deepEqual(
      mine.grants.filter((g) => g.id === grant.id).map((g) => g.state),
      ['used'],
    );
    const res = await t.request('/ext/events?type=grant.used&limit=500', { key: OWNER_KEY });
    const { events } = (await res.json()) as { events: EventJson[] };
    assert.deepEqual(
      events.map((e) => [e.data.grant_id, e.actor.kind, e.actor.grant_id]),
      [[grant.id, 'grant', grant.id]],
    );
    assert.equal((await run(t, LOCK_B, 'lock', OWNER_KEY)).successful, true);
  });

  it('a window: refused before starts_at and from ends_at on, on the sandbox clock', async () => {
    const now = (await json<{ epoch_ms: number }>(await t.request('/_sim/clock'), 200, 'clock')).epoch_ms;
    const iso = (ms: number) => new Date(ms).toISOString();
    const grant = await invite(t, LOCK_B, {
      role: 'operate',
      starts_at: iso(now + 3_600_000),
      ends_at: iso(now + 7_200_000),
    });
    await json(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
    await denied(/outside the grant window: it has not started yet/)(
      await command(t, LOCK_B, 'sync'),
      'before',
    );
    await clockTo(t, iso(now + 3_600_000));
    assert.equal((await run(t, LOCK_B, 'sync')).successful, true);
    await clockTo(t, iso(now + 7_200_000));
    await denied(/outside the grant window: it ended/)(await command(t, LOCK_B, 'sync'), 'after');
    // Ended, it is still accepted: the owner revokes it all the same.
    assert.equal((await revoke(t, LOCK_B, grant.id)).status, 204);
  });

  it("a schedule on the lock's wall clock, across Europe/Berlin's change to summer time", async () => {
    const zone = await t.request(`/ext/locks/${LOCK_B}`, {
      method: 'PATCH',
      key: OWNER_KEY,
      json: { time_zone: 'europe/berlin' },
    });
    assert.equal((await json<{ time_zone: string }>(zone, 200, 'time zone')).time_zone, 'Europe/Berlin');
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_B}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: { time_zone: 'Mars/Base' },
      }),
      400,
      'BAD_PARAMS',
      /time_zone: must be an IANA time zone/,
      'an unknown zone',
    );
    await expectExtError(
      await t.request(`/ext/locks/${LOCK_A}`, {
        method: 'PATCH',
        key: OTHER_KEY,
        json: { time_zone: 'UTC' },
      }),
      400,
      'BAD_PARAMS',
      /owner/,
      'a guest sets the zone',
    );
    await granted(t, LOCK_B, {
      role: 'operate',
      schedule: [{ days: ['mon'], start: '08:00', end: '09:00' }],
    });
    // Monday 22 March 2027, winter time (UTC+1): 08:30 local is 07:30 UTC.
    await clockTo(t, '2027-03-22T06:30:00Z');
    await denied(/outside the grant schedule/)(await command(t, LOCK_B, 'sync'), '07:30 CET');
    await clockTo(t, '2027-03-22T07:30:00Z');
    assert.equal((await run(t, LOCK_B, 'sync')).successful, true, '08:30 CET');
    // Monday 29 March 2027, summer time (UTC+2) since Sunday: 08:30 local is 06:30 UTC.
    await clockTo(t, '2027-03-29T06:30:00Z');
    assert.equal((await run(t, LOCK_B, 'sync')).successful, true, '08:30 CEST');
    await clockTo(t, '2027-03-29T07:30:00Z');
    await denied(/outside the grant schedule/)(await command(t, LOCK_B, 'sync'), '09:30 CEST');
  });
});
