/** POST /public/lock/:device_id: which refusal answers when two checks fail at once. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  answer,
  LOCK_A,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  sendCommand,
  simLockOk,
  startServer,
  type TestServer,
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
  UNAUTHORIZED,
  UNKNOWN_LOCK,
} from './post-lock-helpers.ts';

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
