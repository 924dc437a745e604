/**
 * GET /ext/events, black-box: what each change records (type, actor, method, task), who sees what
 * (owner, guest, stranger), the filters and pagination, and every refusal in /ext's error shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { eventually } from '../../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  standardSeed,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { expectAnswer, expectExtError } from './helpers.ts';

interface EventJson {
  id: string;
  type: string;
  occurred_at: string;
  device_id: string | null;
  actor: { kind: string; account_id?: string; key_prefix?: string };
  method: string | null;
  task_id: string | null;
  data: Record<string, unknown>;
}
interface PageJson {
  events: EventJson[];
  next_cursor: string | null;
}

const STRANGER = 'stranger@example.com';
const STRANGER_KEY = 'stranger-api-key-0003';
const seed: Seed = (() => {
  const s = standardSeed();
  return {
    ...s,
    accounts: [...(s.accounts ?? []), { email: STRANGER, password: 'stranger-password', verified: true }],
    api_keys: [...(s.api_keys ?? []), { account: STRANGER, key: STRANGER_KEY }],
  };
})();

async function page(t: TestServer, query: string, key = OWNER_KEY): Promise<PageJson> {
  const res = await t.request(`/ext/events${query}`, { key });
  const body = (await res.json()) as PageJson;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

/** Every event the key may read, oldest first, through the cursor. */
async function all(t: TestServer, query: string, key = OWNER_KEY): Promise<EventJson[]> {
  const events: EventJson[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = query === '' ? '?' : '&';
    const p = await page(t, `${query}${cursor === null ? '' : `${sep}cursor=${cursor}`}`, key);
    events.push(...p.events);
    if (p.next_cursor === null) return events;
    cursor = p.next_cursor;
    if (query === '') query = '?limit=500';
  }
}

describe('GET /ext/events', () => {
  let t: TestServer;
  let unlockTask: string;
  before(async () => {
    t = await startServer({ seed, flags: ['--no-rate-limit'] });
    // A v3 unlock of the owner's lock A (shared with OTHER), then a hand turn back, a low then
    // critical battery and the lock out of reach past the grace period (--offline-grace-seconds, 60
    // by default, on the sandbox clock); the owner's webhook set through /ext.
    unlockTask = await startTask(t, LOCK_A, 'unlock');
    assert.equal((await waitForTask(t, unlockTask)).successful, true);
    await simLockOk(t, LOCK_A, { locked: true });
    await simLockOk(t, LOCK_A, { battery: 15 });
    await simLockOk(t, LOCK_A, { battery: 5 });
    await simLockOk(t, LOCK_A, { responsive: false });
    await eventually(
      'the lock to be out of reach',
      async () => (await t.server.store.locks.get(LOCK_A))?.responsive === false,
    );
    await advanceClock(t, 60);
    const put = await t.request('/ext/webhook', {
      method: 'PUT',
      key: OWNER_KEY,
      json: { url: 'http://127.0.0.1:9/hook?token=secret-in-query' },
    });
    assert.equal(put.status, 200);
    // The other account's own lock moves too: never in the owner's log.
    const theirs = await startTask(t, OTHER_LOCK, 'unlock', OTHER_KEY);
    await waitForTask(t, theirs, OTHER_KEY);
    await eventually('the hand turn, battery and reach to be recorded', async () => {
      const types = (await all(t, `?device_id=${LOCK_A}`)).map((e) => e.type);
      return types.includes('lock.offline') && types.includes('lock.battery_low') && types;
    });
  });
  after(async () => {
    await t.close();
  });

  it('records a v3 unlock as requested, moved and succeeded, attributed to the key and api_v3', async () => {
    const events = (await all(t, `?device_id=${LOCK_A}`)).filter((e) => e.task_id === unlockTask);
    assert.deepEqual(
      events.map((e) => e.type),
      ['command.requested', 'lock.unlocked', 'command.succeeded'],
    );
    for (const e of events) {
      assert.equal(e.device_id, LOCK_A);
      assert.equal(e.method, 'api_v3');
      assert.equal(e.actor.kind, 'api_key');
      assert.equal(e.actor.key_prefix, OWNER_KEY.slice(0, 6), 'the display prefix, never the key');
      assert.equal(typeof e.actor.account_id, 'string');
      assert.match(e.id, /^evt_[0-9a-f]{28}$/);
      assert.ok(!Number.isNaN(Date.parse(e.occurred_at)));
    }
    assert.deepEqual(events[0]?.data, { command: 'unlock' });
    assert.ok(!JSON.stringify(events).includes(OWNER_KEY), 'no secret in the log');
  });

  it("records a hand turn as manual by the device, the battery crossing the lock's thresholds, and the lock out of reach past the grace period", async () => {
    const events = await all(t, `?device_id=${LOCK_A}`);
    const turn = events.find((e) => e.type === 'lock.locked');
    assert.deepEqual(turn && { actor: turn.actor, method: turn.method, task_id: turn.task_id }, {
      actor: { kind: 'device' },
      method: 'manual',
      task_id: null,
    });
    const low = events.find((e) => e.type === 'lock.battery_low');
    assert.deepEqual(low?.data, { battery: 15, threshold: 20 }, "the lock's own low threshold");
    const critical = events.find((e) => e.type === 'lock.battery_critical');
    assert.deepEqual(critical?.data, { battery: 5, threshold: 10 });
    assert.ok(events.some((e) => e.type === 'lock.offline'));
    const ids = events.map((e) => e.id);
    assert.deepEqual(ids, [...ids].sort(), 'oldest first, by id');
    assert.equal(new Set(ids).size, ids.length);
  });

  it("records the webhook's change without its URL's path or query", async () => {
    const events = await all(t, '?type=webhook.');
    assert.equal(events.length, 1);
    const [e] = events;
    assert.equal(e?.type, 'webhook.updated');
    assert.equal(e?.device_id, null);
    assert.equal(e?.actor.kind, 'api_key');
    assert.deepEqual(e?.data, { host: '127.0.0.1:9', method: 'POST', retries: false });
  });

  it('shows a guest the lock events of locks shared with it, without the owner side of the actor', async () => {
    const events = await all(t, '', OTHER_KEY);
    const devices = new Set(events.map((e) => e.device_id));
    assert.ok(devices.has(LOCK_A), 'the shared lock');
    assert.ok(devices.has(OTHER_LOCK), 'its own lock');
    assert.ok(!devices.has(LOCK_B), "never the owner's other lock");
    const ofA = events.filter((e) => e.device_id === LOCK_A);
    assert.ok(ofA.some((e) => e.type === 'lock.unlocked'));
    for (const e of ofA) {
      assert.match(e.type, /^(lock|command)\./, 'lock events only');
      assert.equal(e.actor.key_prefix, undefined, "never the owner's key");
      assert.equal(e.actor.account_id, undefined, "never the owner's account");
      assert.equal(e.task_id, null, "never the owner's task");
    }
    assert.ok(!events.some((e) => e.type.startsWith('webhook.')), "never the owner's settings");
    // Its own lock's events are its own: shown whole.
    const own = events.find((e) => e.device_id === OTHER_LOCK && e.type === 'lock.unlocked');
    assert.equal(own?.actor.key_prefix, OTHER_KEY.slice(0, 6));
  });

  it('shows a stranger nothing of the others, even when it names their lock', async () => {
    assert.deepEqual(await page(t, '', STRANGER_KEY), { events: [], next_cursor: null });
    assert.deepEqual(await page(t, `?device_id=${LOCK_A}`, STRANGER_KEY), { events: [], next_cursor: null });
  });

  it('filters by type prefix, device, after and before, in either order', async () => {
    const every = await all(t, '');
    const lockOnly = await all(t, '?type=lock.');
    assert.deepEqual(
      lockOnly.map((e) => e.id),
      every.filter((e) => e.type.startsWith('lock.')).map((e) => e.id),
    );
    assert.deepEqual(
      (await all(t, '?type=lock.unlocked')).map((e) => e.type),
      every.filter((e) => e.type === 'lock.unlocked').map((e) => e.type),
    );
    assert.deepEqual(await all(t, `?device_id=${LOCK_B}`), []);
    const [first, second, third] = every;
    assert.ok(first && second && third);
    const between = await page(t, `?after=${first.id}&before=${third.id}`);
    assert.deepEqual(
      between.events.map((e) => e.id),
      [second.id],
    );
    const newest = await page(t, '?order=newest-first&limit=2');
    assert.deepEqual(
      newest.events.map((e) => e.id),
      every
        .slice(-2)
        .reverse()
        .map((e) => e.id),
    );
  });

  it('pages with next_cursor in both orders, each event once', async () => {
    const every = await all(t, '?limit=500');
    assert.ok(every.length >= 6);
    for (const order of ['oldest-first', 'newest-first']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const p: PageJson = await page(t, `?order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(p.events.length <= 2);
        seen.push(...p.events.map((e) => e.id));
        cursor = p.next_cursor;
        pages++;
      } while (cursor !== null && pages < 100);
      const expected = every.map((e) => e.id);
      assert.deepEqual(seen, order === 'oldest-first' ? expected : [...expected].reverse(), order);
    }
    const one = await page(t, '?limit=1');
    assert.equal(one.next_cursor, one.events[0]?.id);
    const last = await page(t, `?limit=500`);
    assert.equal(last.next_cursor, null);
  });

  it('answers 401 without a key or with an unknown one', async () => {
    await expectAnswer(await t.request('/ext/events'), 401, { error: 'UNAUTHORIZED' }, 'no key');
    await expectAnswer(
      await t.request('/ext/events', { key: 'not-a-real-key-000' }),
      401,
      { error: 'UNAUTHORIZED' },
      'bad key',
    );
  });

  it('answers 400 BAD_PARAMS naming the filter for every bad one', async () => {
    const id = 'evt_0000000000010000000000000000';
    const later = 'evt_0000000000020000000000000000';
    const cases: [string, RegExp][] = [
      ['?limit=0', /limit/],
      ['?limit=501', /limit/],
      ['?limit=abc', /limit/],
      ['?limit=-1', /limit/],
      ['?order=sideways', /order/],
      ['?type=LOCK', /type/],
      ['?type=lock%25', /type/],
      ['?type=', /type/],
      [`?type=${'a'.repeat(65)}`, /type/],
      ['?after=12', /after/],
      ['?before=evt_XYZ', /before/],
      [`?after=${later}&before=${id}`, /before/],
      [`?after=${id}&before=${id}`, /before/],
      ['?cursor=nope', /cursor/],
      ['?device_id=a%20b', /device_id/],
      ['?device_id=', /device_id/],
      ['?devices=x', /devices|additional/i],
      ['?limit=1&limit=2', /limit/],
    ];
    for (const [query, message] of cases) {
      await expectExtError(
        await t.request(`/ext/events${query}`, { key: OWNER_KEY }),
        400,
        'BAD_PARAMS',
        message,
        query,
      );
    }
  });
});

describe('GET /ext/events: retention', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit', '--event-retention-days', '2'] });
  });
  after(async () => {
    await t.close();
  });

  it('forgets events older than --event-retention-days at the hourly purge, on the sandbox clock', async () => {
    const first = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, first);
    const old = (await all(t, '')).map((e) => e.id);
    assert.ok(old.length >= 3);
    // A day on: nothing is old enough yet; a new event is made.
    await advanceClock(t, 24 * 3600);
    const second = await startTask(t, LOCK_A, 'lock');
    await waitForTask(t, second);
    const both = (await all(t, '')).map((e) => e.id);
    assert.ok(
      old.every((id) => both.includes(id)),
      'kept for two days',
    );
    // Past two days for the first events, not for the second's: the hourly purge forgets the first
    // only. A move of the clock runs one round of the purge (src/app/hourly-purges.ts); the next is
    // armed an hour after that round, so each hour moved here is one more round.
    await advanceClock(t, 24 * 3600 + 2 * 3600);
    await eventually('the purge to forget the old events', async () => {
      await advanceClock(t, 3600);
      const left = (await all(t, '')).map((e) => e.id);
      return old.every((id) => !left.includes(id)) && left;
    });
    const left = await all(t, '');
    assert.ok(
      left.some((e) => e.task_id === second),
      'the newer events stay',
    );
  });
});
