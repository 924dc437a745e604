/**
 * The admin CLI as an operator runs it: a separate process on a data directory, alone or next to a
 * running server. Exit codes: 0 done, 1 refused, 2 usage.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/adapters/stores/sqlite/open.ts';
import { AdjustableClock } from '../../src/adapters/system/clock.ts';
import { cryptoRandom, scryptHasher, sha256Hasher } from '../../src/adapters/system/crypto.ts';
import { Admin } from '../../src/app/admin.ts';
import {
  cheapPasswords,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OWNER,
  OWNER_KEY,
  startServer,
} from '../support/server.ts';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `src/bin/admin.ts` (or another entry) with these arguments; `input` is written to its stdin. */
function cli(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; entry?: readonly string[] } = {},
): Promise<Run> {
  const entry = options.entry ?? ['--import', 'tsx', 'src/bin/admin.ts'];
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  if (options.env?.LOCKCLOUD_DATA === undefined) delete env.LOCKCLOUD_DATA;
  const child = spawn(process.execPath, [...entry, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The exit code and the one line on stderr; no stack trace, nothing on stdout. */
function refused(run: Run, code: 1 | 2, message: RegExp): void {
  assert.equal(run.code, code, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stderr, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'a stack trace was printed');
  assert.equal(run.stdout, '');
}

function ok(run: Run, stdout: RegExp): void {
  assert.equal(run.code, 0, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stdout, stdout);
  assert.equal(run.stderr, '');
}

const passwords = scryptHasher({ N: 1024, r: 8, p: 1 });
/** The `lockcloud` command from the sources (bin/lockcloud.js runs its build; test/package/pack.test.ts the installed one). */
const CLI = ['--import', 'tsx', 'src/bin/cli.ts'];

async function storedAccount(dataDir: string, email: string) {
  const store = await openSqliteStore(dataDir);
  try {
    return await store.accounts.findByEmail(email);
  } finally {
    await store.close();
  }
}

describe('lockcloud admin (a separate process on a data directory)', () => {
  let dir: string;
  let data: string[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-cli-'));
    data = ['--data', dir];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('create-account, verify, set-password, delete-account and accounts, never printing a secret', async () => {
    ok(
      await cli(['create-account', 'Ann@Example.com', '--password', 'first-secret', ...data]),
      /^created account ann@example\.com \(verified, with a password\)\n$/,
    );
    ok(
      await cli(['create-account', 'bob@example.com', '--no-password', '--unverified', ...data]),
      /^created account bob@example\.com \(unverified, no password: social login only\)\n$/,
    );
    // --data may come before the command too; the password from stdin's first line stays out of history.
    ok(
      await cli([...data, 'create-account', 'cat@example.com'], { input: 'piped-secret\nignored\n' }),
      /created account cat@example\.com \(verified, with a password\)/,
    );
    const cat = await storedAccount(dir, 'cat@example.com');
    assert.equal(await passwords.verify('piped-secret', cat?.passwordHash ?? ''), true);

    ok(await cli(['verify', 'BOB@example.com', ...data]), /^verified bob@example\.com\n$/);
    assert.equal((await storedAccount(dir, 'bob@example.com'))?.verified, true);

    const before = await storedAccount(dir, 'ann@example.com');
    const set = await cli(['set-password', 'ann@example.com', ...data], { input: 'second-secret\r\n' });
    ok(set, /^password set for ann@example\.com; tokens issued before now have expired\n$/);
    const afterSet = await storedAccount(dir, 'ann@example.com');
    assert.ok(afterSet?.passwordHash && before?.passwordHash);
    assert.equal(await passwords.verify('second-secret', afterSet.passwordHash), true);
    assert.equal(await passwords.verify('first-secret', afterSet.passwordHash), false);
    assert.ok((afterSet.passwordChangedAt ?? 0) >= before.createdAt);

    ok(
      await cli(['delete-account', 'bob@example.com', ...data]),
      /^deleted bob@example\.com: its API keys and tokens no longer work\n$/,
    );
    ok(await cli(['delete-account', 'bob@example.com', ...data]), /^bob@example\.com was already deleted\n$/);

    const table = await cli(['accounts', ...data]);
    ok(table, /^EMAIL +VERIFIED +PASSWORD +DELETED +LOCKS\n/);
    const lines = table.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[1] ?? '', /^ann@example\.com +yes +yes +no +0$/);
    assert.match(lines[2] ?? '', /^bob@example\.com +yes +no +\d{4}-\d\d-\d\d +0$/);
    assert.match(lines[3] ?? '', /^cat@example\.com +yes +yes +no +0$/);

    const json = await cli(['accounts', '--json', ...data]);
    ok(json, /^\[/);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    assert.deepEqual(
      rows.map(({ email, verified, has_password, deleted, locks_owned }) => ({
        email,
        verified,
        has_password,
        deleted,
        locks_owned,
      })),
      [
        { email: 'ann@example.com', verified: true, has_password: true, deleted: false, locks_owned: 0 },
        { email: 'bob@example.com', verified: true, has_password: false, deleted: true, locks_owned: 0 },
        { email: 'cat@example.com', verified: true, has_password: true, deleted: false, locks_owned: 0 },
      ],
    );
    for (const secret of ['first-secret', 'piped-secret', 'second-secret', 'scrypt$']) {
      assert.equal(table.stdout.includes(secret) || json.stdout.includes(secret), false, secret);
      assert.equal(set.stdout.includes(secret) || set.stderr.includes(secret), false, secret);
    }
  });

  it('refuses what the rules forbid with exit code 1 and the reason on stderr', async () => {
    // The set-up goes straight to the store: each run of the CLI costs a process start.
    const owner = 'owner@example.com';
    const store = await openSqliteStore(dir);
    const admin = new Admin({
      store,
      passwords,
      secrets: sha256Hasher,
      clock: new AdjustableClock(),
      random: cryptoRandom,
    });
    const ownerId = (await admin.createAccount(owner, { password: 'owner-password', verified: true })).id;
    await admin.createAccount('gone@example.com', { password: null, verified: true });
    await admin.deleteAccount('gone@example.com');
    await admin.createAccount('guest@example.com', { password: 'guest-password', verified: true });
    await store.locks.insert({
      deviceId: LOCK_A,
      serial: 'S',
      nickname: 'N',
      ownerId,
      locked: true,
      battery: 90,
      responsive: true,
      integration: true,
      accessPoint: true,
      appOpen: false,
      accessPointId: null,
      createdAt: 0,
    });
    await store.close();

    const [
      duplicate,
      notEmail,
      emptyPassword,
      emptyStdin,
      shortPassword,
      shortStdin,
      unknown,
      deleted,
      noLock,
      toOwner,
      toGone,
      noDemo,
    ] = await Promise.all([
      cli(['create-account', 'OWNER@example.com', '--password', 'a-password', ...data]),
      cli(['create-account', 'not-an-email', '--password', 'a-password', ...data]),
      cli(['create-account', 'new@example.com', '--password', '', ...data]),
      cli(['set-password', owner, ...data], { input: '' }),
      // The dashboard's rule (issue 20): a one-character password is refused here as it is there.
      cli(['create-account', 'new@example.com', '--password', 'P', ...data]),
      cli(['set-password', owner, ...data], { input: 'seven77\n' }),
      cli(['verify', 'nobody@example.com', ...data]),
      cli(['set-password', 'gone@example.com', '--password', 'a-password', ...data]),
      cli(['share', LOCK_B, owner, ...data]),
      cli(['share', LOCK_A, owner, ...data]),
      cli(['share', LOCK_A, 'gone@example.com', ...data]),
      cli(['demo-credentials', ...data]),
    ]);
    refused(
      duplicate,
      1,
      /^lockcloud admin: an account with the e-mail owner@example\.com already exists\n$/,
    );
    refused(notEmail, 1, /"not-an-email" is not an e-mail address/);
    refused(emptyPassword, 1, /the password must not be empty/);
    refused(emptyStdin, 1, /the password must not be empty/);
    refused(shortPassword, 1, /^lockcloud admin: the password must be at least 8 characters\n$/);
    refused(shortStdin, 1, /^lockcloud admin: the password must be at least 8 characters\n$/);
    refused(unknown, 1, /no account has the e-mail nobody@example\.com/);
    refused(deleted, 1, /the account gone@example\.com is deleted/);
    refused(noLock, 1, new RegExp(`no lock has the device id ${LOCK_B}`));
    refused(toOwner, 1, /owner@example\.com owns lock/);

    refused(toGone, 1, /gone@example\.com is deleted/);
    refused(noDemo, 1, /^lockcloud admin: this data holds no sandbox demo/);
    ok(
      await cli(['share', LOCK_A.toUpperCase(), 'Guest@example.com', ...data]),
      new RegExp(`^shared lock ${LOCK_A} with guest@example\\.com\\n$`),
    );
    const listed = JSON.parse((await cli(['accounts', '--json', ...data])).stdout) as {
      email: string;
      locks_owned: number;
    }[];
    assert.equal(listed.find((a) => a.email === owner)?.locks_owned, 1);
  });

  it('answers usage errors with exit code 2, and --help with 0', async () => {
    const missing = join(dir, 'no-such-dir');
    const [unknownCommand, noCommand, missingArg, extraArg, unknownOption, conflicting, noDir, help] =
      await Promise.all([
        cli(['frobnicate', ...data]),
        cli([...data]),
        cli(['verify', ...data]),
        cli(['verify', 'a@example.com', 'b@example.com', ...data]),
        cli(['accounts', '--yaml', ...data]),
        cli(['create-account', 'x@example.com', '--no-password', '--verified', '--unverified', ...data]),
        cli(['accounts', '--data', missing]),
        cli(['--help']),
      ]);
    refused(unknownCommand, 2, /unknown command 'frobnicate'/);
    assert.equal(noCommand.code, 2);
    assert.match(noCommand.stderr, /Usage: lockcloud admin/);
    refused(missingArg, 2, /missing required argument 'email'/);
    refused(extraArg, 2, /too many arguments/);
    refused(unknownOption, 2, /unknown option '--yaml'/);
    refused(conflicting, 2, /'--unverified' cannot be used with option '--verified'/);
    refused(noDir, 2, new RegExp(`no data directory at ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(help.code, 0);
    assert.match(help.stdout, /create-account .*set-password .*verify .*delete-account .*share .*accounts/s);
    assert.equal((await storedAccount(dir, 'x@example.com')) ?? null, null);
  });

  it('reads the data directory from LOCKCLOUD_DATA, and runs as `lockcloud admin`', async () => {
    const fromEnv = await cli(['accounts', '--json'], { env: { LOCKCLOUD_DATA: dir } });
    ok(fromEnv, /owner@example\.com/);
    const viaBin = await cli(['admin', 'accounts', '--json', ...data], { entry: CLI });
    ok(viaBin, /owner@example\.com/);
    assert.deepEqual(JSON.parse(viaBin.stdout), JSON.parse(fromEnv.stdout));
  });
});

describe('lockcloud admin next to a running server on the same data directory', () => {
  it("changes what the server sees at once; a deleted account's API key answers 401", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-live-'));
    const t = await startServer({ dataDir });
    try {
      const { store } = t.server;
      const serverPasswords = cheapPasswords;
      const data = ['--data', dataDir];

      ok(await cli(['create-account', 'late@example.com', '--password', 'password-one', ...data]), /created/);
      const created = await store.accounts.findByEmail('late@example.com');
      assert.ok(created?.passwordHash);
      assert.equal(await serverPasswords.verify('password-one', created.passwordHash), true);

      ok(
        await cli(['set-password', 'late@example.com', ...data], { input: 'password-two\n' }),
        /password set/,
      );
      const changed = await store.accounts.findByEmail('late@example.com');
      assert.ok(changed?.passwordHash && changed.passwordChangedAt !== null);
      assert.equal(await serverPasswords.verify('password-two', changed.passwordHash), true);
      assert.equal(await serverPasswords.verify('password-one', changed.passwordHash), false);

      ok(await cli(['share', LOCK_B, OTHER, ...data]), /shared lock/);
      refused(await cli(['share', LOCK_A, OWNER, ...data]), 1, /owns lock/);

      assert.equal((await t.request('/public/locks', { key: OTHER_KEY })).status, 200);
      ok(await cli(['delete-account', OTHER, ...data]), /deleted other@example\.com/);
      assert.equal((await t.request('/public/locks', { key: OTHER_KEY })).status, 401);
      assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);

      const listed = JSON.parse((await cli(['accounts', '--json', ...data])).stdout) as Record<
        string,
        unknown
      >[];
      assert.deepEqual(
        listed.map((a) => [a.email, a.deleted, a.locks_owned]),
        [
          ['late@example.com', false, 0],
          [OTHER, true, 1],
          [OWNER, false, 2],
        ],
      );
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
