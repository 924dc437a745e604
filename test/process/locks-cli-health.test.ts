/**
 * `lockcloud locks status` and `lockcloud locks set` (a subprocess, no TTY) against a live server:
 * the lock's full picture from /ext/locks, what a guest sees, the owner's settings through PATCH,
 * and every refusal as one line on stderr with its documented exit code, changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { failed, locksCli, ok, type Run } from './locks-cli-support.ts';

let t: TestServer;
const cli = (args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Run> =>
  locksCli(t, args, env);

async function extLock(id: string, key = OWNER_KEY): Promise<Record<string, unknown>> {
  return (await (await t.request(`/ext/locks/${id}`, { key })).json()) as Record<string, unknown>;
}

/** The lock without its last-seen times, which move with every report (a sent setting makes one). */
function settled(lock: Record<string, unknown>): Record<string, unknown> {
  const { last_seen_at: _seen, access_point, ...rest } = lock;
  if (access_point === null || typeof access_point !== 'object') return { ...rest, access_point };
  const { last_seen_at: _apSeen, ...ap } = access_point as Record<string, unknown>;
  return { ...rest, access_point: ap };
}

/** The rows of a status table, by name. */
function rows(stdout: string): Map<string, string> {
  return new Map(
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => {
        const [, name = '', value = ''] = /^(\S+(?: \S+)?) {2,}(.*)$/.exec(line) ?? [];
        return [name, value];
      }),
  );
}

describe('lockcloud locks status and set (a subprocess, no TTY)', () => {
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  beforeEach(async () => {
    await t.request('/_sim/reset', { method: 'POST' });
  });
  after(() => t.close());

  it('status: every field of the owner, in words', async () => {
    await simLockOk(t, LOCK_B, { jammed: true, door: 'open', firmware: 'lock-fw 9.9.9', battery: 15 });
    const run = await cli(['status', LOCK_B]);
    ok(run, /^lock /);
    const api = (await extLock(LOCK_B)) as { last_seen_at: string; access_point: Record<string, unknown> };
    const ap = api.access_point;
    assert.deepEqual(Object.fromEntries(rows(run.stdout)), {
      lock: 'Back door (SERIAL000B), owner',
      locked: 'no',
      battery: '15% low',
      responsive: 'yes',
      jammed: 'yes',
      door: 'open',
      'last seen': api.last_seen_at,
      firmware: 'lock-fw 9.9.9',
      'auto-lock': 'off',
      thresholds: 'low under 20%, critical under 10%',
      'access point': `${ap.name} (${ap.id}), online, last seen ${ap.last_seen_at}, firmware ${ap.firmware}, signal ${ap.signal} dBm, device protocol ${ap.protocol_version}`,
    });
  });

  it('status: a guest sees the state, not the settings or the access point; --json is its answer', async () => {
    const [text, json] = await Promise.all([
      cli(['status', LOCK_A], { LOCKCLOUD_API_KEY: OTHER_KEY }),
      cli(['status', LOCK_A, '--json'], { LOCKCLOUD_API_KEY: OTHER_KEY }),
    ]);
    ok(text, /^lock +Front door, guest\n/);
    const names = [...rows(text.stdout).keys()];
    assert.deepEqual(names, [
      'lock',
      'locked',
      'battery',
      'responsive',
      'jammed',
      'door',
      'last seen',
      'firmware',
    ]);
    ok(json, /^\{/);
    assert.deepEqual(JSON.parse(json.stdout), await extLock(LOCK_A, OTHER_KEY));
  });

  it('set: changes the settings given, then shows the lock; --auto-lock off; --json is the answer', async () => {
    const run = await cli([
      'set',
      LOCK_A,
      '--nickname',
      'Hall door',
      '--auto-lock',
      '45',
      '--battery-low',
      '30',
      '--battery-critical',
      '15',
    ]);
    ok(run, /^lock +Hall door \(SERIAL000A\), owner\n/);
    assert.equal(rows(run.stdout).get('auto-lock'), '45 s');
    assert.equal(rows(run.stdout).get('thresholds'), 'low under 30%, critical under 15%');
    const after = await extLock(LOCK_A);
    assert.deepEqual(
      [after.nickname, after.auto_lock_seconds, after.battery_low, after.battery_critical],
      ['Hall door', 45, 30, 15],
    );
    const off = await cli(['set', LOCK_A, '--auto-lock', 'off', '--json']);
    ok(off, /^\{/);
    assert.deepEqual(settled(JSON.parse(off.stdout)), settled(await extLock(LOCK_A)));
    assert.equal(JSON.parse(off.stdout).auto_lock_seconds, 0);
  });

  it("set refused: exit 4 with the server's reason; usage errors exit 2; nothing changed", async () => {
    const before = await extLock(LOCK_A);
    const [guest, range, order, stranger, unknown, none, word, negative, badKey] = await Promise.all([
      cli(['set', LOCK_A, '--battery-low', '30'], { LOCKCLOUD_API_KEY: OTHER_KEY }),
      cli(['set', LOCK_A, '--auto-lock', '3601']),
      cli(['set', LOCK_A, '--battery-low', '10', '--battery-critical', '20']),
      cli(['set', OTHER_LOCK, '--battery-low', '30']),
      cli(['status', '00000000-0000-4000-8000-0000000000ee', '--json']),
      cli(['set', LOCK_A]),
      cli(['set', LOCK_A, '--auto-lock', 'soon']),
      cli(['set', LOCK_A, '--battery-low', '-5']),
      cli(['set', LOCK_A, '--battery-low', '30'], { LOCKCLOUD_API_KEY: 'not-a-key' }),
    ]);
    failed(guest, 4, /^lockcloud locks: refused: BAD_PARAMS: only the lock's owner changes its settings\n$/);
    failed(range, 4, /^lockcloud locks: refused: BAD_PARAMS: .*auto_lock_seconds.*\n$/);
    failed(order, 4, /^lockcloud locks: refused: BAD_PARAMS: battery_critical: .*\n$/);
    failed(stranger, 4, /^lockcloud locks: refused: NOT_FOUND: no such lock\n$/);
    failed(unknown, 4, /^lockcloud locks: refused: NOT_FOUND: no such lock\n$/);
    failed(
      none,
      2,
      /^lockcloud locks: nothing to change: give --nickname, --auto-lock, --battery-low or --battery-critical\n$/,
    );
    failed(word, 2, /--auto-lock must be a whole number of seconds, or off/);
    failed(negative, 2, /--battery-low must be a whole number/);
    failed(badKey, 3, /^lockcloud locks: UNAUTHORIZED/);
    for (const run of [guest, range, order, stranger, unknown, none, word, negative, badKey])
      assert.equal(run.stdout, '');
    assert.deepEqual(settled(await extLock(LOCK_A)), settled(before));
  });
});
