import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  actionResult,
  advanceClock,
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';

const FLAGS = ['--no-rate-limit'];
const PATH = '/public/partners/automation';
const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
const UNAUTHORIZED = { status: 401, body: { error: 'UNAUTHORIZED' } };
const NOT_ENABLED = { status: 400, body: { error: 'CLOUD_INTEGRATION_NOT_ENABLED' } };
const LOW_BATTERY = { status: 400, body: { error: 'LOW_BATTERY' } };
const SUCCESS = { status: 'terminated', successful: true };
const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';

/** The partner call: JSON body, no Authorization header. */
function partner(t: TestServer, body: unknown): Promise<Response> {
  return t.request(PATH, { method: 'POST', json: body });
}

function partnerRaw(t: TestServer, body: string, contentType = 'application/json'): Promise<Response> {
  return t.request(PATH, { method: 'POST', headers: { 'content-type': contentType }, body });
}

async function partnerTask(
  t: TestServer,
  command: string,
  deviceId: string,
  apikey = OWNER_KEY,
): Promise<string> {
  const { status, body } = await answer(await partner(t, { command, apikey, device_id: deviceId }));
  assert.equal(status, 200, JSON.stringify(body));
  const keys = Object.keys(body as object);
  assert.deepEqual(keys, ['task_id']);
  const taskId = (body as { task_id: unknown }).task_id;
  assert.equal(typeof taskId, 'string');
  return taskId as string;
}

describe('POST /public/partners/automation', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('unlocks with the key in the body and no header: 200 {"task_id"}, readable with the header key', async () => {
    const res = await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A });
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const { status, body } = await answer(res);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body as object), ['task_id']);
    const taskId = (body as { task_id: string }).task_id;
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await answer(await actionResult(t, taskId, OWNER_KEY)), {
      status: 200,
      body: { status: 'terminated', task_id: taskId, successful: true },
    });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('locks, and the task reads processing then terminated through action-result', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 3_000 });
    const taskId = await partnerTask(t, 'lock', LOCK_B);
    assert.deepEqual(await answer(await actionResult(t, taskId)), {
      status: 200,
      body: { status: 'processing', task_id: taskId },
    });
    await advanceClock(t, 3);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: true, battery: 55, responsive: true },
    });
  });

  it('accepts an upper-case device id and a JSON content type with a charset', async () => {
    const res = await partnerRaw(
      t,
      JSON.stringify({ command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A.toUpperCase() }),
      'application/json; charset=utf-8',
    );
    const { status, body } = await answer(res);
    assert.equal(status, 200);
    assert.deepEqual(await waitForTask(t, (body as { task_id: string }).task_id), SUCCESS);
  });

  it('its tasks fail like any other: fail_next JAMMED ends terminated successful:false JAMMED', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const taskId = await partnerTask(t, 'unlock', LOCK_A);
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });
  });

  it('answers 401 UNAUTHORIZED for a missing, empty, non-string or unknown apikey', async () => {
    for (const apikey of [undefined, '', '   ', 42, null, ['x'], 'not-a-known-key', `Bearer ${OWNER_KEY}x`]) {
      const body: Record<string, unknown> = { command: 'unlock', device_id: LOCK_A };
      if (apikey !== undefined) body.apikey = apikey;
      assert.deepEqual(await answer(await partner(t, body)), UNAUTHORIZED, JSON.stringify(apikey));
    }
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers 401 for the apikey of a deleted account', async () => {
    const res = await t.request(`/_sim/accounts/${encodeURIComponent(OTHER)}`, {
      method: 'POST',
      json: { deleted: true },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OTHER_KEY, device_id: OTHER_LOCK })),
      UNAUTHORIZED,
    );
  });

  it('checks the apikey before the other fields: a bad command or device with no valid key is 401', async () => {
    for (const body of [
      { command: 'sync', device_id: LOCK_A },
      { command: 'open', apikey: 'nope', device_id: LOCK_A },
      { command: 'unlock', apikey: 'nope', device_id: 'not-a-uuid' },
      { apikey: 'nope' },
      {},
    ]) {
      assert.deepEqual(await answer(await partner(t, body)), UNAUTHORIZED, JSON.stringify(body));
    }
  });

  it('answers BAD_PARAMS for a body that is not a JSON object, whatever key it carries', async () => {
    for (const raw of ['null', '[]', `["${OWNER_KEY}"]`, '"unlock"', '42', 'true', '{"apikey":', '']) {
      assert.deepEqual(await answer(await partnerRaw(t, raw)), BAD_PARAMS, raw);
    }
    assert.deepEqual(
      await answer(
        await partnerRaw(
          t,
          JSON.stringify({ command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A }),
          'text/plain',
        ),
      ),
      BAD_PARAMS,
    );
    assert.deepEqual(await answer(await t.request(PATH, { method: 'POST' })), BAD_PARAMS);
  });

  it('answers 413 BAD_PARAMS for a body over 16 KiB', async () => {
    const res = await partner(t, {
      command: 'unlock',
      apikey: OWNER_KEY,
      device_id: LOCK_A,
      pad: 'x'.repeat(17 * 1024),
    });
    assert.deepEqual(await answer(res), { status: 413, body: { error: 'BAD_PARAMS' } });
  });

  it('answers BAD_PARAMS for sync and any command other than lock or unlock', async () => {
    for (const command of ['sync', 'open', 'LOCK', '', 1, null, undefined]) {
      const body: Record<string, unknown> = { apikey: OWNER_KEY, device_id: LOCK_A };
      if (command !== undefined) body.command = command;
      assert.deepEqual(await answer(await partner(t, body)), BAD_PARAMS, JSON.stringify(command));
    }
  });

  it('answers BAD_PARAMS for a missing, malformed or unknown device_id', async () => {
    for (const deviceId of [undefined, '', 'not-a-uuid', 7, UNKNOWN_LOCK]) {
      const body: Record<string, unknown> = { command: 'unlock', apikey: OWNER_KEY };
      if (deviceId !== undefined) body.device_id = deviceId;
      assert.deepEqual(await answer(await partner(t, body)), BAD_PARAMS, JSON.stringify(deviceId));
    }
  });

  it("answers BAD_PARAMS for another account's lock and for a lock merely shared with the key's account", async () => {
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: OTHER_LOCK })),
      BAD_PARAMS,
    );
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OTHER_KEY, device_id: LOCK_A })),
      BAD_PARAMS,
    );
  });

  it('answers BAD_PARAMS for a field beyond command, apikey and device_id', async () => {
    const res = await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A, extra: 1 });
    assert.deepEqual(await answer(res), BAD_PARAMS);
  });

  it('answers CLOUD_INTEGRATION_NOT_ENABLED with integration off or no access point', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      NOT_ENABLED,
    );
    await simLockOk(t, LOCK_B, { access_point: false });
    assert.deepEqual(
      await answer(await partner(t, { command: 'lock', apikey: OWNER_KEY, device_id: LOCK_B })),
      NOT_ENABLED,
    );
  });

  it('answers LOW_BATTERY under 10 %, and CLOUD_INTEGRATION_NOT_ENABLED when integration is off as well', async () => {
    await simLockOk(t, LOCK_A, { battery: 9 });
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      LOW_BATTERY,
    );
    await simLockOk(t, LOCK_A, { integration: false });
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      NOT_ENABLED,
    );
  });

  it('answers "DEVICE_IS_BUSY n" while a task from either endpoint runs, LOW_BATTERY before busy', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    await startTask(t, LOCK_A, 'sync');
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      { status: 400, body: { error: 'DEVICE_IS_BUSY 15' } },
    );
    await simLockOk(t, LOCK_B, { latency_ms: 60_000 });
    await partnerTask(t, 'lock', LOCK_B);
    const viaHeader = await t.request(`/public/lock/${LOCK_B}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'sync' },
    });
    assert.deepEqual(await answer(viaHeader), { status: 400, body: { error: 'DEVICE_IS_BUSY 15' } });
    await simLockOk(t, LOCK_A, { battery: 5 });
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      LOW_BATTERY,
    );
  });

  it('answers plain DEVICE_IS_BUSY while the mobile app holds the connection', async () => {
    await simLockOk(t, LOCK_A, { app_open: true });
    assert.deepEqual(
      await answer(await partner(t, { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A })),
      { status: 400, body: { error: 'DEVICE_IS_BUSY' } },
    );
  });

  it('accepts the next command once the running task has ended', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const first = await partnerTask(t, 'unlock', LOCK_A);
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, first), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
    assert.deepEqual(await waitForTask(t, await partnerTask(t, 'unlock', LOCK_A)), SUCCESS);
  });

  it("a partner task is not readable with another account's key", async () => {
    const taskId = await partnerTask(t, 'unlock', LOCK_A);
    await waitForTask(t, taskId);
    assert.deepEqual(await answer(await actionResult(t, taskId, OTHER_KEY)), BAD_PARAMS);
  });
});
