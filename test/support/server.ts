/**
 * Starts a real lockcloud on a random port over a fresh SQLite file, as `npm start` would, for
 * black-box tests. Everything a test needs to drive it goes over HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import type { Seed } from '../../src/app/seed/schema.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, type LockcloudServer } from '../../src/main.ts';

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
}

// Tests need password hashing, not its cost: scrypt at a low work factor.
const cheapPasswords = scryptHasher({ N: 1024, r: 8, p: 1 });

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lockcloud-test-'));
  const argv = ['--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'silent'];
  const seed = options.seed === undefined ? standardSeed() : options.seed;
  if (seed !== null) {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    argv.push('--seed', seedFile);
  }
  argv.push(...(options.flags ?? []));
  const server = await createServer(loadConfig({}, argv), { passwords: cheapPasswords });
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
export async function waitForTask(
  t: TestServer,
  taskId: string,
  key = OWNER_KEY,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const res = await t.request(`/public/action-result?task_id=${encodeURIComponent(taskId)}`, { key });
    const body = (await res.json()) as Record<string, unknown>;
    if (body.status !== 'processing') return body;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${taskId} still processing after 500 polls`);
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
