/**
 * The locks' health through the SDK (`client.locks`, /ext/locks), against a live server: what an
 * owner and a guest each read, the sandbox's jam, door and battery seen through it, the owner's
 * settings, and every refusal as its error class with the server's message, changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BadParamsError,
  type LockcloudClient,
  LockcloudSandboxClient,
  NotFoundError,
  UnauthorizedError,
  V3Error,
} from '../../sdk/src/index.ts';
import { LOCK_A, LOCK_B, OTHER_KEY, OTHER_LOCK, startServer, type TestServer } from '../support/server.ts';
import { client } from './helpers.ts';

const OWNER_ONLY = ['auto_lock_seconds', 'battery_low', 'battery_critical', 'access_point'];

describe('sdk: client.locks (/ext/locks)', () => {
  let t: TestServer;
  let c: LockcloudClient;
  let guest: LockcloudClient;
  let sandbox: LockcloudSandboxClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    c = client(t);
    guest = client(t, { apiKey: OTHER_KEY });
    sandbox = new LockcloudSandboxClient({ baseUrl: t.url });
  });
  after(() => t.close());

  it("list: the owner's locks with their settings and access point; each as get answers it", async () => {
    const { locks } = await c.locks.list();
    assert.deepEqual(
      locks.map((l) => [l.device_id, l.role]),
      [
        [LOCK_A, 'owner'],
        [LOCK_B, 'owner'],
      ],
    );
    const a = await c.locks.get(LOCK_A);
    assert.deepEqual(locks[0], a);
    for (const field of OWNER_ONLY) assert.ok(field in a, field);
    assert.deepEqual([a.battery_low, a.battery_critical], [20, 10]);
    assert.equal(typeof a.access_point?.online, 'boolean');
    // The v3 fields, the same as v3 reads them.
    const v3 = await c.getLock(LOCK_A);
    assert.deepEqual({ locked: a.locked, battery: a.battery, responsive: a.responsive }, v3);
  });

  it('a guest reads the state of the lock shared with it, never the settings or the access point', async () => {
    const shared = (await guest.locks.list()).locks.find((l) => l.device_id === LOCK_A);
    assert.ok(shared);
    assert.equal(shared.role, 'guest');
    for (const field of OWNER_ONLY) assert.ok(!(field in shared), `${field} shown to a guest`);
    assert.deepEqual(await guest.locks.get(LOCK_A), shared);
  });

  it('shows the jam, the door, the firmware and the battery state the lock reports', async () => {
    await sandbox.setLock(LOCK_B, { jammed: true, door: 'open', firmware: 'lock-fw 9.9.9', battery: 8 });
    try {
      const b = await c.locks.get(LOCK_B);
      assert.deepEqual(
        [b.jammed, b.door, b.firmware, b.battery, b.battery_state],
        [true, 'open', 'lock-fw 9.9.9', 8, 'critical'],
      );
      assert.equal(typeof b.last_seen_at, 'string');
    } finally {
      await sandbox.reset();
    }
  });

  it("update: the owner's settings, answered as get reads them afterwards; the battery state read again", async () => {
    await sandbox.setLock(LOCK_A, { battery: 25 });
    try {
      assert.equal((await c.locks.get(LOCK_A)).battery_state, 'ok');
      const changed = await c.locks.update(LOCK_A, {
        nickname: 'Hall door',
        battery_low: 30,
        battery_critical: 15,
      });
      assert.deepEqual(
        [changed.nickname, changed.battery_low, changed.battery_critical, changed.battery_state],
        ['Hall door', 30, 15, 'low'],
      );
      assert.deepEqual(await c.locks.get(LOCK_A), changed);
      assert.equal((await c.listLocks()).find((l) => l.device_id === LOCK_A)?.nickname, 'Hall door');
      // The seed's access point speaks device protocol 2: auto-lock is the device's to run.
      assert.equal(changed.access_point?.protocol_version, 2);
      assert.equal((await c.locks.update(LOCK_A, { auto_lock_seconds: 30 })).auto_lock_seconds, 30);
      assert.equal((await c.locks.update(LOCK_A, { auto_lock_seconds: 0 })).auto_lock_seconds, 0);
    } finally {
      await sandbox.reset();
    }
  });

  it("refusals: BadParamsError with the server's message, NotFoundError, UnauthorizedError; nothing changed", async () => {
    const before = await c.locks.get(LOCK_A);
    const bad = async (call: Promise<unknown>, message: RegExp) => {
      const error = await call.then(
        () => assert.fail('resolved'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof BadParamsError && error instanceof V3Error, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.code, 'BAD_PARAMS');
      assert.match(error.message, message);
      return error;
    };
    await bad(c.locks.update(LOCK_A, { auto_lock_seconds: 3601 }), /auto_lock_seconds/);
    await bad(c.locks.update(LOCK_A, { battery_low: 20, battery_critical: 25 }), /battery_critical/);
    await bad(c.locks.update(LOCK_A, {}), /^lockcloud answered 400 BAD_PARAMS/);
    await bad(guest.locks.update(LOCK_A, { battery_low: 30 }), /only the lock's owner changes its settings/);

    for (const call of [
      () => c.locks.get(OTHER_LOCK),
      () => c.locks.get('00000000-0000-4000-8000-0000000000ee'),
      () => c.locks.update(OTHER_LOCK, { battery_low: 30 }),
    ]) {
      const missing = await call().catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError, String(missing));
      assert.equal(missing.message, 'lockcloud answered 404 NOT_FOUND: no such lock');
      assert.deepEqual(missing.body, { error: 'NOT_FOUND', message: 'no such lock' });
    }
    await assert.rejects(client(t, { apiKey: 'not-a-key' }).locks.list(), UnauthorizedError);
    assert.throws(() => c.locks.get(''), TypeError);
    assert.deepEqual(await c.locks.get(LOCK_A), before);
  });
});
