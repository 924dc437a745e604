/**
 * What the tests of startLockcloud() (src/index.ts) share: a seed, calls to a running fake, and a
 * scratch TMPDIR per test file, so each file can tell which fake directories are left over.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { BetterSqlite3 as Database } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import {
  type LockcloudSeed,
  type RunningLockcloud,
  type StartLockcloudOptions,
  startLockcloud,
} from '../../src/index.ts';
import { eventually } from '../support/eventually.ts';

export const ANN = 'ann@example.com';
export const BOB = 'bob@example.com';
export const KEY = 'test-key-ann-0001';
export const LOCK = '00000000-0000-4000-8000-000000000001';
export const OTHER_LOCK = '00000000-0000-4000-8000-000000000002';

export const SEED: LockcloudSeed = {
  accounts: [
    { email: ANN, password: 'ann-password' },
    { email: BOB, password: null },
  ],
  api_keys: [{ account: ANN, key: KEY }],
  locks: [
    { device_id: LOCK, owner: ANN, nickname: 'Front door' },
    { device_id: OTHER_LOCK, owner: ANN, locked: false, battery: 50 },
  ],
};

/** Every fake of this file makes its directory under this one (os.tmpdir() follows TMPDIR). */
export let scratch: string;
export const leftovers = () => readdirSync(scratch).filter((name) => name.startsWith('lockcloud-fake-'));

export async function call(
  lockcloud: RunningLockcloud,
  method: 'GET' | 'POST',
  path: string,
  json?: unknown,
  key = lockcloud.apiKey ?? '',
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(lockcloud.url + path, {
    method,
    headers: { authorization: key, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

export async function send(lockcloud: RunningLockcloud, deviceId: string, command: string): Promise<string> {
  const { status, body } = await call(lockcloud, 'POST', `/public/lock/${deviceId}`, { command });
  assert.equal(status, 200, JSON.stringify(body));
  return (body as { task_id: string }).task_id;
}

/** Polls the task until it ends; the server's timers end every task, so this terminates. */
export async function outcome(lockcloud: RunningLockcloud, taskId: string): Promise<unknown> {
  return eventually(`task ${taskId} to end`, async () => {
    const { body } = await call(lockcloud, 'GET', `/public/action-result?task_id=${taskId}`);
    const { task_id, ...ended } = body as Record<string, unknown>;
    assert.equal(task_id, taskId, 'action-result names the task asked for');
    return ended.status !== 'processing' && ended;
  });
}

export const SUCCEEDED = { status: 'terminated', successful: true };
export const failed = (error: string) => ({ status: 'terminated', successful: false, error });

/** The stored password hash of an account, read from the fake's SQLite file (behind the API). */
export function storedHash(email: string): string {
  const [dir] = leftovers();
  assert.ok(dir, 'a running fake has its directory under TMPDIR');
  const db = new Database(join(scratch, dir, 'data', 'lockcloud.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT password_hash FROM accounts WHERE email = ?').get(email) as
      | { password_hash: string }
      | undefined;
    return row?.password_hash ?? '';
  } finally {
    db.close();
  }
}

export async function withFake<T>(
  options: StartLockcloudOptions,
  use: (lockcloud: RunningLockcloud) => Promise<T>,
): Promise<T> {
  const lockcloud = await startLockcloud(options);
  try {
    return await use(lockcloud);
  } finally {
    await lockcloud.close();
  }
}

/**
 * Points TMPDIR at a directory of the calling file's own for its tests (every fake makes its
 * directory under it), and removes it after them.
 */
export function useScratch(): void {
  const tmpdirBefore = process.env.TMPDIR;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lockcloud-fake-test-'));
    process.env.TMPDIR = scratch;
  });
  after(() => {
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    rmSync(scratch, { recursive: true, force: true });
  });
}
