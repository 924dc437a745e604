/** POST /public/lock/:device_id: each reason a command is refused, one at a time. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  advanceClock,
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  sendCommand,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import {
  BAD_PARAMS,
  BUSY_NO_WAIT,
  busySeconds,
  FLAGS,
  LOW_BATTERY,
  NOT_ENABLED,
  occupy,
  postRaw,
  SUCCESS,
  UNAUTHORIZED,
  UNKNOWN_LOCK,
} from './post-lock-helpers.ts';

const busyFor = (seconds: number) => ({ status: 400, body: { error: `DEVICE_IS_BUSY ${seconds}` } });

describe('POST /public/lock/:device_id: refusals', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('answers 401 UNAUTHORIZED without a key, with an empty or unknown key', async () => {
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, '{"command":"lock"}', null)), UNAUTHORIZED);
    for (const key of ['', 'Bearer ', 'not-a-known-key']) {
      assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'lock', key)), UNAUTHORIZED, `key ${key}`);
    }
    // Nothing ran: the lock is as the seed left it.
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers BAD_PARAMS for a missing command or a value other than lock, unlock, sync', async () => {
    for (const body of [
      {},
      { command: null },
      { command: 1 },
      { command: true },
      { command: ['lock'] },
      { command: '' },
      { command: 'LOCK' },
      { command: ' lock' },
      { command: 'open' },
      { cmd: 'lock' },
    ]) {
      const res = await t.request(`/public/lock/${LOCK_A}`, { method: 'POST', key: OWNER_KEY, json: body });
      assert.deepEqual(await answer(res), BAD_PARAMS, JSON.stringify(body));
    }
  });

  it('answers BAD_PARAMS for a body with a field beyond command', async () => {
    const res = await t.request(`/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'unlock', force: true },
    });
    assert.deepEqual(await answer(res), BAD_PARAMS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers BAD_PARAMS for a body that is not valid JSON, not an object, empty or absent', async () => {
    for (const body of ['{"command":', 'lock', 'null', '"lock"', '["lock"]', '42', '', undefined]) {
      assert.deepEqual(await answer(await postRaw(t, LOCK_A, body)), BAD_PARAMS, JSON.stringify(body));
    }
    const plain = await t.request(`/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      headers: { 'content-type': 'text/plain' },
      body: '{"command":"lock"}',
    });
    assert.deepEqual(await answer(plain), BAD_PARAMS);
  });

  it('answers 413 BAD_PARAMS for a body over 16 KiB', async () => {
    const res = await postRaw(t, LOCK_A, JSON.stringify({ command: 'lock', pad: 'x'.repeat(17 * 1024) }));
    assert.deepEqual(await answer(res), { status: 413, body: { error: 'BAD_PARAMS' } });
  });

  it('answers BAD_PARAMS for an unknown or malformed device id', async () => {
    assert.deepEqual(await answer(await sendCommand(t, UNKNOWN_LOCK, 'lock')), BAD_PARAMS);
    for (const id of ['not-a-uuid', `${LOCK_A}0`, '1234']) {
      assert.deepEqual(await answer(await sendCommand(t, id, 'lock')), BAD_PARAMS, id);
    }
  });

  it('answers BAD_PARAMS for a lock of another account and for a lock merely shared with the account', async () => {
    assert.deepEqual(await answer(await sendCommand(t, OTHER_LOCK, 'unlock', OWNER_KEY)), BAD_PARAMS);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock', OTHER_KEY)), BAD_PARAMS);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'sync', OTHER_KEY)), BAD_PARAMS);
    // Neither lock moved.
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
    assert.deepEqual(await answer(await getLock(t, OTHER_LOCK, OTHER_KEY)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers CLOUD_INTEGRATION_NOT_ENABLED for lock, unlock and sync with integration off', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    for (const command of ['lock', 'unlock', 'sync']) {
      assert.deepEqual(await answer(await sendCommand(t, LOCK_A, command)), NOT_ENABLED, command);
    }
    await simLockOk(t, LOCK_A, { integration: true });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
  });

  it('answers CLOUD_INTEGRATION_NOT_ENABLED for a lock not paired with an access point', async () => {
    await simLockOk(t, LOCK_B, { access_point: false });
    for (const command of ['lock', 'unlock', 'sync']) {
      assert.deepEqual(await answer(await sendCommand(t, LOCK_B, command)), NOT_ENABLED, command);
    }
  });

  it('answers CLOUD_INTEGRATION_NOT_ENABLED for a lock seeded with integration off or without access point', async () => {
    const off = '00000000-0000-4000-8000-0000000000d1';
    const unpaired = '00000000-0000-4000-8000-0000000000d2';
    const seeded = await startServer({
      flags: FLAGS,
      seed: {
        accounts: [{ email: 'solo@example.com', password: 'solo-password' }],
        api_keys: [{ account: 'solo@example.com', key: 'solo-api-key-0003' }],
        locks: [
          { device_id: off, owner: 'solo@example.com', integration: false },
          { device_id: unpaired, owner: 'solo@example.com', access_point: false },
        ],
      },
    });
    try {
      assert.deepEqual(
        await answer(await sendCommand(seeded, off, 'unlock', 'solo-api-key-0003')),
        NOT_ENABLED,
      );
      assert.deepEqual(
        await answer(await sendCommand(seeded, unpaired, 'unlock', 'solo-api-key-0003')),
        NOT_ENABLED,
      );
    } finally {
      await seeded.close();
    }
  });

  it('answers LOW_BATTERY for lock and unlock under 10 %, but runs sync', async () => {
    await simLockOk(t, LOCK_A, { battery: 9 });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'lock')), LOW_BATTERY);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), LOW_BATTERY);
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'sync')), SUCCESS);
    await simLockOk(t, LOCK_A, { battery: 0 });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), LOW_BATTERY);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 0, responsive: true },
    });
  });

  it('follows a configured battery threshold (--low-battery 30)', async () => {
    const strict = await startServer({ flags: [...FLAGS, '--low-battery', '30'] });
    try {
      await simLockOk(strict, LOCK_A, { battery: 29 });
      assert.deepEqual(await answer(await sendCommand(strict, LOCK_A, 'unlock')), LOW_BATTERY);
      await simLockOk(strict, LOCK_A, { battery: 30 });
      assert.deepEqual(await waitForTask(strict, await startTask(strict, LOCK_A, 'unlock')), SUCCESS);
    } finally {
      await strict.close();
    }
  });

  it('answers "DEVICE_IS_BUSY n" while a task runs: n whole seconds until the 15 s timeout', async () => {
    await occupy(t, LOCK_A, 'unlock');
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'lock')), busyFor(15));
  });

  it('refuses lock, unlock and sync alike while a task runs; other locks stay free', async () => {
    await occupy(t, LOCK_A);
    for (const command of ['lock', 'unlock', 'sync']) {
      const n = await busySeconds(await sendCommand(t, LOCK_A, command));
      assert.ok(n >= 1 && n <= 15, `n=${n}`);
    }
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'lock')), SUCCESS);
  });

  it('counts n down with the clock and never below 1', async () => {
    await occupy(t, LOCK_A);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), busyFor(15));
    await advanceClock(t, 10);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), busyFor(5));
    await advanceClock(t, 4);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), busyFor(1));
  });

  it('bounds n by a configured command timeout (--command-timeout-ms 3000)', async () => {
    const quick = await startServer({ flags: [...FLAGS, '--command-timeout-ms', '3000'] });
    try {
      await occupy(quick, LOCK_A);
      assert.deepEqual(await answer(await sendCommand(quick, LOCK_A, 'unlock')), busyFor(3));
    } finally {
      await quick.close();
    }
  });

  it('answers plain DEVICE_IS_BUSY while the mobile app holds the connection, and accepts once it closes', async () => {
    await simLockOk(t, LOCK_A, { app_open: true });
    for (const command of ['lock', 'unlock', 'sync']) {
      assert.deepEqual(await answer(await sendCommand(t, LOCK_A, command)), BUSY_NO_WAIT, command);
    }
    await simLockOk(t, LOCK_A, { app_open: false });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
  });

  it('accepts a new command once the running task has ended', async () => {
    const running = await occupy(t, LOCK_A, 'unlock');
    await busySeconds(await sendCommand(t, LOCK_A, 'unlock'));
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, running), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('accepts a new command right after a task ended in failure', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const jammed = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, jammed), {
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
  });
});
