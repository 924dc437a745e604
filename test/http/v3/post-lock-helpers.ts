/** Shared by the POST /public/lock test files: the expected answers, a raw poster, and a busy lock. */
import assert from 'node:assert/strict';
import {
  actionResult,
  answer,
  OWNER_KEY,
  simLockOk,
  startTask,
  type TestServer,
} from '../../support/server.ts';

export const FLAGS = ['--no-rate-limit'];
export const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
export const UNAUTHORIZED = { status: 401, body: { error: 'UNAUTHORIZED' } };
export const NOT_ENABLED = { status: 400, body: { error: 'CLOUD_INTEGRATION_NOT_ENABLED' } };
export const LOW_BATTERY = { status: 400, body: { error: 'LOW_BATTERY' } };
export const BUSY_NO_WAIT = { status: 400, body: { error: 'DEVICE_IS_BUSY' } };
export const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';
export const SUCCESS = { status: 'terminated', successful: true };

/** POST /public/lock/:id with a raw body (JSON content type when a body is given); key null sends no key. */
export function postRaw(
  t: TestServer,
  deviceId: string,
  body: string | undefined,
  key: string | null = OWNER_KEY,
) {
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
export async function occupy(t: TestServer, deviceId: string, command = 'sync'): Promise<string> {
  await simLockOk(t, deviceId, { latency_ms: 60_000 });
  const taskId = await startTask(t, deviceId, command);
  assert.deepEqual(await answer(await actionResult(t, taskId)), {
    status: 200,
    body: { status: 'processing', task_id: taskId },
  });
  return taskId;
}

/** The busy answer with its wait, checked to be `DEVICE_IS_BUSY n` with n a whole number >= 1. */
export async function busySeconds(res: Response): Promise<number> {
  const { status, body } = await answer(res);
  assert.equal(status, 400);
  const error = (body as { error?: unknown }).error;
  assert.equal(typeof error, 'string');
  const match = /^DEVICE_IS_BUSY ([1-9][0-9]*)$/.exec(error as string);
  assert.ok(match, `expected "DEVICE_IS_BUSY n", got ${JSON.stringify(body)}`);
  assert.deepEqual(body, { error: `DEVICE_IS_BUSY ${match[1]}` });
  return Number(match[1]);
}
