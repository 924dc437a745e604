import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  actionResult,
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

const FLAGS = ['--no-rate-limit'];
const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
const UNAUTHORIZED = { status: 401, body: { error: 'UNAUTHORIZED' } };
const NOT_ENABLED = { status: 400, body: { error: 'CLOUD_INTEGRATION_NOT_ENABLED' } };
const LOW_BATTERY = { status: 400, body: { error: 'LOW_BATTERY' } };
const BUSY_NO_WAIT = { status: 400, body: { error: 'DEVICE_IS_BUSY' } };
const busyFor = (seconds: number) => ({ status: 400, body: { error: `DEVICE_IS_BUSY ${seconds}` } });
const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';
const SUCCESS = { status: 'terminated', successful: true };

/** POST /public/lock/:id with a raw body (JSON content type when a body is given); key null sends no key. */
function postRaw(t: TestServer, deviceId: string, body: string | undefined, key: string | null = OWNER_KEY) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  return t.request(`/public/lock/${deviceId}`, {
    method: 'POST',
    headers,
    ...(key === null ? {} : { key }),
    ...(body === undefined ? {} : { body }),
  });
}

/** Keeps a command running on the lock (the device takes 60 s, past the 15 s timeout). */
async function occupy(t: TestServer, deviceId: string, command = 'sync'): Promise<string> {
  await simLockOk(t, deviceId, { latency_ms: 60_000 });
  const taskId = await startTask(t, deviceId, command);
  assert.deepEqual(await answer(await actionResult(t, taskId)), {
    status: 200,
    body: { status: 'processing' },
  });
  return taskId;
}

/** The busy answer with its wait, checked to be `DEVICE_IS_BUSY n` with n a whole number >= 1. */
async function busySeconds(res: Response): Promise<number> {
  const { status, body } = await answer(res);
  assert.equal(status, 400);
  const error = (body as { error?: unknown }).error;
  assert.equal(typeof error, 'string');
  const match = /^DEVICE_IS_BUSY ([1-9][0-9]*)$/.exec(error as string);
  assert.ok(match, `expected "DEVICE_IS_BUSY n", got ${JSON.stringify(body)}`);
  assert.deepEqual(body, { error: `DEVICE_IS_BUSY ${match[1]}` });
  return Number(match[1]);
}

describe('POST /public/lock/:device_id: happy paths', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('lock answers 200 {"task_id"} at once; the task ends terminated successful and the lock reads locked', async () => {
    const res = await sendCommand(t, LOCK_B, 'lock');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['task_id']);
    assert.equal(typeof body.task_id, 'string');
    assert.notEqual(body.task_id, '');
    assert.deepEqual(await waitForTask(t, body.task_id as string), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: true, battery: 55, responsive: true },
    });
  });

  it('unlock ends terminated successful and the lock reads unlocked', async () => {
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('lock then unlock then lock again each succeed and each move the lock', async () => {
    for (const [command, locked] of [
      ['unlock', false],
      ['lock', true],
      ['unlock', false],
    ] as const) {
      assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, command)), SUCCESS, command);
      assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
        status: 200,
        body: { locked, battery: 100, responsive: true },
      });
    }
  });

  it('lock on a lock already locked succeeds and leaves it locked', async () => {
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'lock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('sync ends terminated successful and leaves the status as the lock reports it', async () => {
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'sync')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: false, battery: 55, responsive: true },
    });
  });

  it('gives every command its own task id', async () => {
    const first = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, first);
    const second = await startTask(t, LOCK_A, 'lock');
    await waitForTask(t, second);
    const third = await startTask(t, LOCK_B, 'lock');
    assert.equal(new Set([first, second, third]).size, 3);
  });

  it('accepts a JSON content type with a charset parameter, a Bearer key and an upper-case id', async () => {
    const res = await t.request(`/public/lock/${LOCK_A.toUpperCase()}`, {
      method: 'POST',
      key: `Bearer ${OWNER_KEY}`,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ command: 'unlock' }),
    });
    const { status, body } = await answer(res);
    assert.equal(status, 200);
    assert.deepEqual(await waitForTask(t, (body as { task_id: string }).task_id), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('accepts lock and unlock at exactly the 10 % threshold', async () => {
    await simLockOk(t, LOCK_A, { battery: 10 });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 10, responsive: true },
    });
  });
});

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

describe('POST /public/lock/:device_id: which check wins when two fail', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('no key and a bad body: 401', async () => {
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, '{"command":"open"}', null)), UNAUTHORIZED);
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, '{not json', null)), UNAUTHORIZED);
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, undefined, null)), UNAUTHORIZED);
  });

  it('unknown key and a body over 16 KiB: 401', async () => {
    const big = JSON.stringify({ command: 'lock', pad: 'x'.repeat(17 * 1024) });
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, big, 'not-a-known-key')), UNAUTHORIZED);
  });

  it('no key and an unknown or malformed lock: 401', async () => {
    assert.deepEqual(await answer(await postRaw(t, UNKNOWN_LOCK, '{"command":"lock"}', null)), UNAUTHORIZED);
    assert.deepEqual(await answer(await postRaw(t, 'not-a-uuid', '{"command":"lock"}', null)), UNAUTHORIZED);
  });

  it('bad body and an unknown lock: BAD_PARAMS', async () => {
    assert.deepEqual(await answer(await postRaw(t, UNKNOWN_LOCK, '{"command":"open"}')), BAD_PARAMS);
  });

  it('bad body and integration off: BAD_PARAMS', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, '{"command":"open"}')), BAD_PARAMS);
  });

  it('bad body and a busy lock: BAD_PARAMS', async () => {
    await occupy(t, LOCK_A);
    assert.deepEqual(await answer(await postRaw(t, LOCK_A, '{}')), BAD_PARAMS);
  });

  it('a lock of another account with integration off and low battery: BAD_PARAMS', async () => {
    await simLockOk(t, OTHER_LOCK, { integration: false, battery: 3 });
    assert.deepEqual(await answer(await sendCommand(t, OTHER_LOCK, 'unlock', OWNER_KEY)), BAD_PARAMS);
  });

  it('a shared lock that is busy: BAD_PARAMS for the account it is shared with', async () => {
    await occupy(t, LOCK_A);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock', OTHER_KEY)), BAD_PARAMS);
  });

  it('integration off and low battery: CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await simLockOk(t, LOCK_A, { integration: false, battery: 5 });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), NOT_ENABLED);
  });

  it('no access point and low battery: CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await simLockOk(t, LOCK_A, { battery: 5 });
    await simLockOk(t, LOCK_A, { access_point: false });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), NOT_ENABLED);
  });

  it('integration off and busy: CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await occupy(t, LOCK_A);
    await simLockOk(t, LOCK_A, { integration: false });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), NOT_ENABLED);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'sync')), NOT_ENABLED);
  });

  it('integration off and the app open: CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await simLockOk(t, LOCK_A, { integration: false, app_open: true });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), NOT_ENABLED);
  });

  it('low battery and busy: LOW_BATTERY for lock and unlock, DEVICE_IS_BUSY n for sync', async () => {
    await occupy(t, LOCK_A);
    await simLockOk(t, LOCK_A, { battery: 5 });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'lock')), LOW_BATTERY);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), LOW_BATTERY);
    await busySeconds(await sendCommand(t, LOCK_A, 'sync'));
  });

  it('low battery and the app open: LOW_BATTERY', async () => {
    await simLockOk(t, LOCK_A, { battery: 5, app_open: true });
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'unlock')), LOW_BATTERY);
    assert.deepEqual(await answer(await sendCommand(t, LOCK_A, 'sync')), BUSY_NO_WAIT);
  });
});
