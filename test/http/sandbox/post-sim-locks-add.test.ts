/**
 * POST /_sim/locks (issue 20, point 4): a simulated lock added to an account, run by the server's own
 * simulator as the seed's are: listed and controllable at once over v3, changeable through the
 * sandbox, kept by a restart, removed by a reset; and its errors, in the sandbox's shape.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import {
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  simLock,
  standardSeed,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { expectSimError, postRaw } from '../bad-input-helpers.ts';
import { acceptedTask, freshDataDir, json, lockStatus } from './helpers.ts';

const NEWCOMER = 'newcomer@example.com';
const NEWCOMER_KEY = 'newcomer-api-key-0003';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The standard seed and an account with no lock at all, as a new sandbox account is. */
function seedWithNewcomer(): Seed {
  const seed = standardSeed();
  return {
    ...seed,
    accounts: [...(seed.accounts ?? []), { email: NEWCOMER, password: 'newcomer-password' }],
    api_keys: [...(seed.api_keys ?? []), { account: NEWCOMER, key: NEWCOMER_KEY }],
  };
}

function addLock(t: TestServer, body: unknown): Promise<Response> {
  return t.request('/_sim/locks', { method: 'POST', json: body });
}

async function listed(t: TestServer, key: string): Promise<{ device_id: string; nickname: string }[]> {
  const res = await t.request('/public/locks', { key });
  assert.equal(res.status, 200);
  return (await res.json()) as { device_id: string; nickname: string }[];
}

describe('POST /_sim/locks', () => {
  const dataDir = freshDataDir();
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: seedWithNewcomer(), dataDir, flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let added = '';
  let accessPoint = '';

  it('answers 201 with the new lock: its simulated state, serial, nickname, owner and access point', async () => {
    assert.deepEqual(await listed(t, NEWCOMER_KEY), [], 'a new account has no lock');
    const res = await addLock(t, { owner: 'NewComer@Example.com', nickname: 'Shed', battery: 80 });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = await json(res);
    added = String(body.device_id);
    accessPoint = String(body.access_point_id);
    assert.match(added, UUID);
    assert.match(accessPoint, UUID);
    assert.deepEqual(body, {
      device_id: added,
      locked: true,
      battery: 80,
      responsive: true,
      integration: true,
      access_point: true,
      app_open: false,
      latency_ms: 0,
      fail_next: null,
      jammed: false,
      door: 'closed',
      firmware: 'lockcloud-sim-lock/2',
      auto_lock_seconds: 0,
      protocol_version: 2,
      serial: added.replaceAll('-', '').slice(-10).toUpperCase(),
      nickname: 'Shed',
      owner: NEWCOMER,
      access_point_id: accessPoint,
    });
  });

  it('is the account’s at once: listed, read, and moved by a command over v3', async () => {
    assert.deepEqual(await listed(t, NEWCOMER_KEY), [
      { device_id: added, serial: added.replaceAll('-', '').slice(-10).toUpperCase(), nickname: 'Shed' },
    ]);
    assert.deepEqual(await lockStatus(t, added, NEWCOMER_KEY), {
      locked: true,
      battery: 80,
      responsive: true,
    });
    const task = await acceptedTask(t, added, 'unlock', NEWCOMER_KEY);
    assert.deepEqual(await waitForTask(t, task, NEWCOMER_KEY), { status: 'terminated', successful: true });
    assert.equal((await lockStatus(t, added, NEWCOMER_KEY)).locked, false);
    // Nobody else's: another account's key does not reach it.
    assert.equal((await t.request(`/public/lock/${added}`, { key: OTHER_KEY })).status, 400);
  });

  it('is a simulated lock like the seed’s: the sandbox changes it as the lock would', async () => {
    const res = await simLock(t, added, { locked: true, battery: 42 });
    assert.equal(res.status, 200);
    assert.deepEqual(await lockStatus(t, added, NEWCOMER_KEY), {
      locked: true,
      battery: 42,
      responsive: true,
    });
  });

  it('pairs the next lock with the same access point; defaults as a seed lock’s', async () => {
    const body = await json(await addLock(t, { owner: NEWCOMER, locked: false, latency_ms: 250 }));
    assert.equal(body.access_point_id, accessPoint);
    const serial = String(body.device_id).replaceAll('-', '').slice(-10).toUpperCase();
    assert.equal(body.nickname, `Lock ${serial}`);
    assert.equal(body.locked, false);
    assert.equal(body.battery, 100);
    assert.equal(body.latency_ms, 250);
    assert.equal((await listed(t, NEWCOMER_KEY)).length, 2);
    // An account with a simulated access point of the seed gets its lock paired there.
    const seeded = await t.server.store.locks.get(OTHER_LOCK);
    const other = await json(await addLock(t, { owner: OTHER }));
    assert.equal(other.access_point_id, seeded?.accessPointId);
    assert.equal((await listed(t, OTHER_KEY)).length, 2);
  });

  it('is kept by a restart: listed again, and its device runs again', async () => {
    await t.close();
    t = await startServer({ seed: seedWithNewcomer(), dataDir, flags: ['--no-rate-limit'] });
    assert.equal((await listed(t, NEWCOMER_KEY)).length, 2);
    const task = await acceptedTask(t, added, 'unlock', NEWCOMER_KEY);
    assert.deepEqual(await waitForTask(t, task, NEWCOMER_KEY), { status: 'terminated', successful: true });
    assert.deepEqual(await lockStatus(t, added, NEWCOMER_KEY), {
      locked: false,
      battery: 42,
      responsive: true,
    });
  });

  it('is removed by a reset, its access point with it; adding again works afterwards', async () => {
    assert.equal((await t.request('/_sim/reset', { method: 'POST' })).status, 204);
    assert.deepEqual(await listed(t, NEWCOMER_KEY), []);
    assert.equal((await listed(t, OTHER_KEY)).length, 1);
    const aps = await t.server.store.accessPoints.list();
    assert.ok(!aps.some((ap) => ap.id === accessPoint), 'the added access point is gone');
    const again = await json(await addLock(t, { owner: NEWCOMER, nickname: 'Shed again' }));
    assert.notEqual(again.access_point_id, accessPoint);
    const task = await acceptedTask(t, String(again.device_id), 'unlock', NEWCOMER_KEY);
    assert.deepEqual(await waitForTask(t, task, NEWCOMER_KEY), { status: 'terminated', successful: true });
  });

  it('answers 404 NOT_FOUND for an unknown or deleted account, 400 BAD_PARAMS for a bad body; nothing is added', async () => {
    const before = (
      await t.server.store.locks.listVisibleTo(
        (await t.server.store.accounts.findByEmail(NEWCOMER))?.id ?? '',
      )
    ).length;
    await expectSimError(
      await addLock(t, { owner: 'nobody@example.com' }),
      404,
      'NOT_FOUND',
      'unknown owner',
    );
    assert.equal(
      (await t.request(`/_sim/accounts/${OTHER}`, { method: 'POST', json: { deleted: true } })).status,
      200,
    );
    await expectSimError(await addLock(t, { owner: OTHER }), 404, 'NOT_FOUND', 'deleted owner');
    for (const body of [
      {},
      { owner: '' },
      { owner: NEWCOMER, nickname: '' },
      { owner: NEWCOMER, nickname: 'x'.repeat(129) },
      { owner: NEWCOMER, nickname: 'tab\there' },
      { owner: NEWCOMER, battery: 101 },
      { owner: NEWCOMER, battery: '50' },
      { owner: NEWCOMER, locked: 'yes' },
      { owner: NEWCOMER, latency_ms: 600_001 },
      { owner: NEWCOMER, device_id: '00000000-0000-4000-8000-000000000001' },
      { owner: 1 },
    ])
      await expectSimError(await addLock(t, body), 400, 'BAD_PARAMS', JSON.stringify(body));
    await expectSimError(await postRaw(t, '/_sim/locks', undefined, {}), 400, 'BAD_PARAMS', 'no body');
    const after = (
      await t.server.store.locks.listVisibleTo(
        (await t.server.store.accounts.findByEmail(NEWCOMER))?.id ?? '',
      )
    ).length;
    assert.equal(after, before);
  });
});

describe('POST /_sim/locks on a server that runs no simulated devices (--no-simulator)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: seedWithNewcomer(), flags: ['--no-rate-limit', '--no-simulator'] });
  });
  after(() => t.close());

  it('answers 400 BAD_PARAMS saying so, and adds nothing', async () => {
    const res = await addLock(t, { owner: NEWCOMER });
    const body = await json(res);
    assert.equal(res.status, 400);
    assert.equal(body.error, 'BAD_PARAMS');
    assert.match(String(body.message), /runs no simulated devices \(--no-simulator\)/);
    assert.deepEqual(await listed(t, NEWCOMER_KEY), []);
    assert.equal(
      (await t.server.store.accessPoints.list()).some((ap) => ap.name === 'Simulated access point'),
      false,
    );
  });
});
