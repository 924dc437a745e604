/**
 * Starts a real lockcloud on a random port over a fresh SQLite file, as `npm start` would, for
 * black-box tests. Everything a test needs to drive it goes over HTTP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import type { Seed } from '../../src/app/seed/schema.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, type LockcloudServer } from '../../src/main.ts';
import { eventually } from './eventually.ts';

export const OWNER = 'owner@example.com';
export const OTHER = 'other@example.com';
export const OWNER_KEY = 'owner-api-key-0001';
export const OTHER_KEY = 'other-api-key-0002';
export const LOCK_A = '00000000-0000-4000-8000-00000000000a';
export const LOCK_B = '00000000-0000-4000-8000-00000000000b';
export const OTHER_LOCK = '00000000-0000-4000-8000-0000000000cc';

/** Two accounts, each with a key; the owner has two locks, the other account one. */
export function standardSeed(): Seed {
  return {
    accounts: [
      { email: OWNER, password: 'owner-password', verified: true },
      { email: OTHER, password: 'other-password', verified: true },
    ],
    api_keys: [
      { account: OWNER, key: OWNER_KEY },
      { account: OTHER, key: OTHER_KEY },
    ],
    locks: [
      { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door', owner: OWNER, shared_with: [OTHER] },
      {
        device_id: LOCK_B,
        serial: 'SERIAL000B',
        nickname: 'Back door',
        owner: OWNER,
        locked: false,
        battery: 55,
      },
      { device_id: OTHER_LOCK, serial: 'SERIAL00CC', nickname: 'Their door', owner: OTHER },
    ],
  };
}

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  readonly server: LockcloudServer;
  /** fetch relative to the server, JSON-encoding `json` when given. */
  request(path: string, init?: RequestInit & { json?: unknown; key?: string }): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** undefined: standardSeed(); null: no seed (the demo in sandbox mode). */
  readonly seed?: Seed | null;
  /** Extra command-line flags, e.g. ['--production'] or ['--command-timeout-ms', '2000']. */
  readonly flags?: readonly string[];
  /** Reuse a data directory (restart tests); a fresh one otherwise. */
  readonly dataDir?: string;
  /** The server's log (pino); none by default (--log-level silent). */
  readonly logger?: Logger;
}

/** Tests need password hashing, not its cost: scrypt at a low work factor. Every test server uses it. */
export const cheapPasswords = scryptHasher({ N: 1024, r: 8, p: 1 });

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lockcloud-test-'));
  const argv = [
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--data',
    dataDir,
    '--log-level',
    'silent',
    '--mqtt-port',
    '0',
  ];
  const seed = options.seed === undefined ? standardSeed() : options.seed;
  if (seed !== null) {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    argv.push('--seed', seedFile);
  }
  argv.push(...(options.flags ?? []));
  const server = await createServer(loadConfig({}, argv), {
    passwords: cheapPasswords,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const url = await server.listen();
  return {
    url,
    dataDir,
    server,
    request(path, init = {}) {
      const { json, key, headers, ...rest } = init;
      const h = new Headers(headers);
      if (key !== undefined) h.set('authorization', key);
      if (json !== undefined) h.set('content-type', 'application/json');
      return fetch(url + path, {
        ...rest,
        headers: h,
        body: json === undefined ? rest.body : JSON.stringify(json),
      });
    },
    async close() {
      await server.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls action-result until the task ends; the server's timers end every task, so this terminates. */
export function waitForTask(
  t: TestServer,
  taskId: string,
  key = OWNER_KEY,
): Promise<Record<string, unknown>> {
  return eventually(`task ${taskId} to end`, async () => {
    const res = await t.request(`/public/action-result?task_id=${encodeURIComponent(taskId)}`, { key });
    const { task_id, ...outcome } = (await res.json()) as Record<string, unknown>;
    // Every answer names its task (issue 21); the outcome is what the callers compare.
    if (res.status === 200) assert.equal(task_id, taskId, 'action-result answers the task asked for');
    else assert.equal(task_id, undefined);
    return outcome.status !== 'processing' && outcome;
  });
}

export async function sendCommand(
  t: TestServer,
  deviceId: string,
  command: string,
  key = OWNER_KEY,
): Promise<Response> {
  return t.request(`/public/lock/${deviceId}`, { method: 'POST', key, json: { command } });
}

export async function simLock(
  t: TestServer,
  deviceId: string,
  change: Record<string, unknown>,
): Promise<Response> {
  return t.request(`/_sim/locks/${deviceId}`, { method: 'POST', json: change });
}

export async function advanceClock(t: TestServer, seconds: number): Promise<void> {
  const res = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: seconds } });
  if (res.status !== 200) throw new Error(`clock advance failed: ${res.status}`);
}

// ---- helpers added for the v3 endpoint tests (append-only) ----

/** Status and parsed JSON body together, so one deepEqual checks both and shows both on failure. */
export async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text, the assertion will show it
  }
  return { status: res.status, body };
}

/** Sends a command that must be accepted (200 {"task_id"}); returns the task id. */
export async function startTask(
  t: TestServer,
  deviceId: string,
  command: string,
  key = OWNER_KEY,
): Promise<string> {
  const { status, body } = await answer(await sendCommand(t, deviceId, command, key));
  const taskId = (body as { task_id?: unknown } | null)?.task_id;
  if (status !== 200 || typeof taskId !== 'string') {
    throw new Error(`${command} on ${deviceId} was refused: ${status} ${JSON.stringify(body)}`);
  }
  return taskId;
}

export function actionResult(t: TestServer, taskId: string, key = OWNER_KEY): Promise<Response> {
  return t.request(`/public/action-result?task_id=${encodeURIComponent(taskId)}`, { key });
}

export function getLock(t: TestServer, deviceId: string, key = OWNER_KEY): Promise<Response> {
  return t.request(`/public/lock/${deviceId}`, { key });
}

/** simLock that must succeed: a sandbox refusal is a broken test setup, not a finding. */
export async function simLockOk(
  t: TestServer,
  deviceId: string,
  change: Record<string, unknown>,
): Promise<void> {
  const res = await simLock(t, deviceId, change);
  if (res.status !== 200)
    throw new Error(
      `/_sim/locks/${deviceId} refused ${JSON.stringify(change)}: ${res.status} ${await res.text()}`,
    );
}
