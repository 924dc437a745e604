/**
 * The admin CLI's webhook commands as an operator runs them: a separate process on a data directory,
 * alone or next to a running server. They apply the extension API's rules; the first set makes the
 * signing secret, sealed under the server's key, and prints it once; nothing prints it again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import { AdjustableClock } from '../../src/adapters/system/clock.ts';
import { cryptoRandom, scryptHasher, sha256Hasher } from '../../src/adapters/system/crypto.ts';
import { aesGcmBox, loadServerKey, SERVER_KEY_FILE } from '../../src/adapters/webhooks/secret-box.ts';
import { Admin } from '../../src/app/admin.ts';
import { eventually } from '../support/eventually.ts';
import { startProcess } from '../support/process.ts';
import { LOCK_A, OWNER, OWNER_KEY, simLockOk, startServer } from '../support/server.ts';
import { type Received, startReceiver } from '../support/webhook-receiver.ts';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `src/bin/admin.ts` with these arguments and environment (LOCKCLOUD_* of the test run left out). */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('LOCKCLOUD_')) delete base[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/admin.ts', ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function ok(run: Run, stdout: RegExp): void {
  assert.equal(run.code, 0, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stdout, stdout);
  assert.equal(run.stderr, '');
}

/** The exit code and the one line on stderr; no stack trace, nothing on stdout. */
function refused(run: Run, code: 1 | 2, message: RegExp): void {
  assert.equal(run.code, code, `exit code; stdout: ${run.stdout}; stderr: ${run.stderr}`);
  assert.match(run.stderr, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'a stack trace was printed');
  assert.equal(run.stdout, '');
}

const SECRET_LINE =
  /^signing secret \(shown this once; give it to the receiver\): (whsec_[A-Za-z0-9+/]{32})$/m;

function printedSecret(run: Run): string {
  const secret = SECRET_LINE.exec(run.stdout)?.[1];
  assert.ok(secret, `a secret was printed: ${run.stdout}`);
  return secret;
}

/** The database file and its WAL, as bytes. */
function databaseBytes(dir: string): Buffer {
  return Buffer.concat(
    [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`]
      .map((name) => join(dir, name))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path)),
  );
}

function verifies(request: Received, secret: string): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64')}`;
  return String(request.headers['webhook-signature']).split(' ').includes(expected);
}

const passwords = scryptHasher({ N: 1024, r: 8, p: 1 });

describe('lockcloud admin webhook, set-webhook, remove-webhook', () => {
  let dir: string;
  let data: string[];
  const ann = 'ann@example.com';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-webhook-'));
    data = ['--data', dir];
    const store = await openSqliteStore(dir);
    const admin = new Admin({
      store,
      passwords,
      secrets: sha256Hasher,
      clock: new AdjustableClock(),
      random: cryptoRandom,
    });
    await admin.createAccount(ann, { password: 'ann-password', verified: true });
    await admin.createAccount('gone@example.com', { password: null, verified: true });
    await admin.deleteAccount('gone@example.com');
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('shows that an account has no webhook, and touches no key for it', async () => {
    ok(await cli(['webhook', ann, ...data]), /^ann@example\.com has no webhook\n$/);
    ok(await cli(['webhook', ann, '--json', ...data]), /^null\n$/);
    assert.equal(existsSync(join(dir, SERVER_KEY_FILE)), false, 'no key file made to read settings');
  });

  it('the first set makes the secret, prints it once and seals it under a new 0600 key file', async () => {
    const first = await cli([
      'set-webhook',
      'Ann@Example.com',
      'https://hooks.example.com/{device_id}/{state}',
      ...data,
    ]);
    ok(
      first,
      /^webhook set for ann@example\.com: POST https:\/\/hooks\.example\.com\/\{device_id\}\/\{state\} \(retries off\)\n/,
    );
    const secret = printedSecret(first);
    assert.equal(first.stdout.split('\n').filter((l) => l !== '').length, 2);

    const keyFile = join(dir, SERVER_KEY_FILE);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    // What the server will open with the same key file is the secret printed.
    const store = await openSqliteStore(dir);
    try {
      const account = await store.accounts.findByEmail(ann);
      assert.ok(account);
      const stored = await store.webhooks.getSecrets(account.id);
      assert.ok(stored);
      assert.equal(stored.current.includes(secret.slice('whsec_'.length)), false);
      assert.equal(aesGcmBox(loadServerKey(undefined, dir)).open(stored.current), secret);
      assert.deepEqual(await store.webhooks.get(account.id), {
        accountId: account.id,
        url: 'https://hooks.example.com/{device_id}/{state}',
        method: 'POST',
        retries: false,
      });
    } finally {
      await store.close();
    }
    const bytes = databaseBytes(dir);
    assert.ok(bytes.length > 0);
    assert.equal(bytes.indexOf(secret), -1, 'the secret is in the database in clear');
    assert.equal(bytes.indexOf(secret.slice('whsec_'.length)), -1, "the secret's base64 is in the database");
  });

  it('a later set changes the settings and keeps the secret, without printing it; webhook shows them', async () => {
    const store = await openSqliteStore(dir);
    const account = await store.accounts.findByEmail(ann);
    const before = account && (await store.webhooks.getSecrets(account.id));
    await store.close();

    const again = await cli([
      'set-webhook',
      ann,
      'https://hooks.example.com/get?d={device_id}',
      '--method',
      'GET',
      '--retries',
      ...data,
    ]);
    ok(
      again,
      /^webhook set for ann@example\.com: GET https:\/\/hooks\.example\.com\/get\?d=\{device_id\} \(retries on\)\nits signing secret is unchanged\n$/,
    );
    assert.doesNotMatch(again.stdout, /whsec_/);

    const shown = await cli(['webhook', ann, ...data]);
    ok(shown, /^ann@example\.com: GET https:\/\/hooks\.example\.com\/get\?d=\{device_id\} \(retries on\)\n$/);
    const json = await cli(['webhook', ann, '--json', ...data]);
    ok(json, /^\{/);
    assert.deepEqual(JSON.parse(json.stdout), {
      url: 'https://hooks.example.com/get?d={device_id}',
      method: 'GET',
      retries: true,
    });
    for (const run of [shown, json]) assert.doesNotMatch(run.stdout, /whsec_|v1\./);

    // Like a PUT, a set without the options puts back their defaults.
    ok(
      await cli(['set-webhook', ann, 'https://hooks.example.com/p', ...data]),
      /: POST https:\/\/hooks\.example\.com\/p \(retries off\)\nits signing secret is unchanged\n$/,
    );
    const after = await openSqliteStore(dir);
    try {
      const id = (await after.accounts.findByEmail(ann))?.id ?? '';
      assert.deepEqual(await after.webhooks.getSecrets(id), before, 'the sealed secret did not change');
    } finally {
      await after.close();
    }
  });

  it('refuses what the extension API refuses, with exit code 1 and the field named', async () => {
    const long = `https://hooks.example.com/${'a'.repeat(257 - 'https://hooks.example.com/'.length)}`;
    const [tooLong, notHttp, credentials, notUrl, badMethod, lowerMethod, unknown, deleted] =
      await Promise.all([
        cli(['set-webhook', ann, long, ...data]),
        cli(['set-webhook', ann, 'ftp://hooks.example.com/', ...data]),
        cli(['set-webhook', ann, 'https://user:pass@hooks.example.com/', ...data]),
        cli(['set-webhook', ann, 'hooks.example.com/x', ...data]),
        cli(['set-webhook', ann, 'https://hooks.example.com/', '--method', 'PUT', ...data]),
        cli(['set-webhook', ann, 'https://hooks.example.com/', '--method', 'get', ...data]),
        cli(['set-webhook', 'nobody@example.com', 'https://hooks.example.com/', ...data]),
        cli(['set-webhook', 'gone@example.com', 'https://hooks.example.com/', ...data]),
      ]);
    refused(tooLong, 1, /^lockcloud admin: url: must be at most 256 characters\n$/);
    refused(notHttp, 1, /^lockcloud admin: url: must be http or https\n$/);
    refused(credentials, 1, /^lockcloud admin: url: must not carry credentials\n$/);
    refused(notUrl, 1, /^lockcloud admin: url: is not a URL\n$/);
    refused(badMethod, 1, /^lockcloud admin: method: must be GET or POST\n$/);
    refused(lowerMethod, 1, /^lockcloud admin: method: must be GET or POST\n$/);
    refused(unknown, 1, /no account has the e-mail nobody@example\.com/);
    refused(deleted, 1, /the account gone@example\.com is deleted/);
    refused(await cli(['webhook', 'nobody@example.com', ...data]), 1, /no account has the e-mail/);
    refused(await cli(['remove-webhook', 'nobody@example.com', ...data]), 1, /no account has the e-mail/);
    // Nothing changed.
    ok(await cli(['webhook', ann, ...data]), /^ann@example\.com: POST https:\/\/hooks\.example\.com\/p /);
    ok(await cli(['webhook', 'gone@example.com', ...data]), /^gone@example\.com has no webhook\n$/);
  });

  it('answers usage errors with exit code 2', async () => {
    const [noUrl, extra, noMethod, unknownOption, help] = await Promise.all([
      cli(['set-webhook', ann, ...data]),
      cli(['set-webhook', ann, 'https://a.example/', 'https://b.example/', ...data]),
      cli(['set-webhook', ann, 'https://a.example/', '--method']),
      cli(['webhook', ann, '--secret', ...data]),
      cli(['--help']),
    ]);
    refused(noUrl, 2, /missing required argument 'url'/);
    refused(extra, 2, /too many arguments/);
    refused(noMethod, 2, /option '--method <method>' argument missing/);
    refused(unknownOption, 2, /unknown option '--secret'/);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /webhook .*set-webhook .*remove-webhook/s);
  });

  it('remove-webhook removes it and its secret; a second remove says there was none', async () => {
    ok(await cli(['remove-webhook', ann, ...data]), /^removed the webhook of ann@example\.com\n$/);
    ok(await cli(['remove-webhook', ann, ...data]), /^ann@example\.com had no webhook\n$/);
    ok(await cli(['webhook', ann, ...data]), /^ann@example\.com has no webhook\n$/);
    // A new webhook gets a new secret, printed once again.
    const fresh = await cli(['set-webhook', ann, 'https://hooks.example.com/', ...data]);
    ok(fresh, /webhook set for ann@example\.com/);
    printedSecret(fresh);
  });

  it('with LOCKCLOUD_SECRET_KEY, seals under that key and writes no key file', async () => {
    const other = mkdtempSync(join(tmpdir(), 'lockcloud-admin-webhook-env-'));
    try {
      const store = await openSqliteStore(other);
      const admin = new Admin({
        store,
        passwords,
        secrets: sha256Hasher,
        clock: new AdjustableClock(),
        random: cryptoRandom,
      });
      await admin.createAccount(ann, { password: 'ann-password', verified: true });
      await store.close();
      const key = randomBytes(32);
      const run = await cli(['set-webhook', ann, 'https://hooks.example.com/', '--data', other], {
        LOCKCLOUD_SECRET_KEY: key.toString('base64'),
      });
      ok(run, /webhook set/);
      const secret = printedSecret(run);
      assert.equal(existsSync(join(other, SERVER_KEY_FILE)), false);
      const reopened = await openSqliteStore(other);
      try {
        const id = (await reopened.accounts.findByEmail(ann))?.id ?? '';
        const stored = await reopened.webhooks.getSecrets(id);
        assert.equal(aesGcmBox(key).open(stored?.current ?? ''), secret);
      } finally {
        await reopened.close();
      }
      // A bad key is a configuration error, before anything is written.
      refused(
        await cli(['set-webhook', ann, 'https://hooks.example.com/', '--data', other], {
          LOCKCLOUD_SECRET_KEY: 'short',
        }),
        2,
        /LOCKCLOUD_SECRET_KEY must be 32 bytes/,
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('set-webhook next to a running server', () => {
  it('the server delivers at once to the webhook the CLI set, signed with the secret the CLI printed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-webhook-live-'));
    const receiver = await startReceiver();
    const t = await startServer({ dataDir, flags: ['--no-rate-limit'] });
    try {
      const run = await cli([
        'set-webhook',
        OWNER,
        `${receiver.url}/cli/{device_id}/{state}`,
        '--data',
        dataDir,
      ]);
      ok(run, /webhook set for owner@example\.com/);
      const secret = printedSecret(run);
      const view = await t.request('/ext/webhook', { key: OWNER_KEY });
      assert.deepEqual(await view.json(), {
        url: `${receiver.url}/cli/{device_id}/{state}`,
        method: 'POST',
        retries: false,
      });

      await simLockOk(t, LOCK_A, { locked: false });
      await eventually('the delivery', () => receiver.requests.length === 1);
      const [request] = receiver.requests;
      assert.ok(request);
      assert.equal(request.url, `/cli/${LOCK_A}/unlocked`);
      assert.ok(
        verifies(request, secret),
        `signed with the printed secret: ${request.headers['webhook-signature']}`,
      );

      ok(await cli(['remove-webhook', OWNER, '--data', dataDir]), /removed/);
      assert.equal((await t.request('/ext/webhook', { key: OWNER_KEY })).status, 404);
    } finally {
      await t.close();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a server started with LOCKCLOUD_SECRET_KEY opens what the CLI sealed with the same key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-webhook-env-live-'));
    const receiver = await startReceiver();
    const key = randomBytes(32).toString('base64');
    const server = await startProcess(['--data', dataDir, '--host', '127.0.0.1', '--no-rate-limit'], {
      LOCKCLOUD_SECRET_KEY: key,
    });
    try {
      const demoEmail = 'demo@lockcloud.example';
      const run = await cli(['set-webhook', demoEmail, `${receiver.url}/env/{state}`, '--data', dataDir], {
        LOCKCLOUD_SECRET_KEY: key,
      });
      ok(run, /webhook set for demo@lockcloud\.example/);
      const secret = printedSecret(run);
      assert.equal(existsSync(join(dataDir, SERVER_KEY_FILE)), false, 'neither process made a key file');

      // The demo's first lock, moved through the sandbox.
      const store = await openSqliteStore(dataDir);
      const lock = await store.accounts
        .findByEmail(demoEmail)
        .then(async (demo) => (await store.locks.listOwnedBy(demo?.id ?? ''))[0])
        .finally(() => store.close());
      assert.ok(lock, 'the demo has a lock');
      const { deviceId, locked } = lock;
      const res = await fetch(`${server.url}/_sim/locks/${deviceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ locked: !locked }),
      });
      assert.equal(res.status, 200);
      await eventually('the delivery', () => receiver.requests.length === 1);
      const [request] = receiver.requests;
      assert.ok(request);
      assert.equal(request.url, `/env/${locked ? 'unlocked' : 'locked'}`);
      assert.ok(verifies(request, secret), 'signed with the printed secret');
    } finally {
      await server.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
