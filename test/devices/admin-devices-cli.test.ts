/**
 * The admin CLI's access-point commands as an operator runs them: a separate process on a data
 * directory. Exit codes: 0 done, 1 refused, 2 usage. (mqtt-acl's files are checked against a real
 * Mosquitto in mosquitto-acl.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/adapters/stores/sqlite/open.ts';
import { sha256Hasher } from '../../src/adapters/system/crypto.ts';
import { type Run, runAdmin } from '../support/admin-cli.ts';

function ok(run: Run): string {
  assert.equal(run.code, 0, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stderr, '');
  return run.stdout;
}

function refused(run: Run, code: 1 | 2, message: RegExp): void {
  assert.equal(run.code, code, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stderr, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'a stack trace was printed');
  assert.equal(run.stdout, '');
}

describe('lockcloud admin: access points (a separate process)', () => {
  let dir: string;
  let data: string[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-devices-'));
    data = ['--data', dir];
    ok(await runAdmin(['create-account', 'ann@example.com', '--password', 'ann-password', ...data]));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('register-ap prints the credentials once; the store keeps only hashes', async () => {
    const out = ok(await runAdmin(['register-ap', 'Ann@Example.com', '--name', 'Hall', ...data]));
    const id = /id: +(\S+)/.exec(out)?.[1] ?? '';
    const username = /username: +(\S+)/.exec(out)?.[1] ?? '';
    const password = /password: +(\S+)/.exec(out)?.[1] ?? '';
    assert.match(out, /registered access point "Hall" for ann@example\.com/);
    assert.match(password, /^lcd_/);
    assert.ok(username.endsWith(id));
    const store = await openSqliteStore(dir);
    try {
      const stored = await store.accessPoints.get(id);
      assert.equal(stored?.secretHash, sha256Hasher.hash(password));
      assert.ok(!JSON.stringify(await store.snapshot()).includes(password));
    } finally {
      await store.close();
    }
  });

  it('register-ap --json prints only [{id, username, password}]', async () => {
    const rows = JSON.parse(
      ok(await runAdmin(['register-ap', 'ann@example.com', '--count', '3', '--json', ...data])),
    ) as Record<string, string>[];
    assert.equal(rows.length, 3);
    for (const row of rows) {
      assert.deepEqual(Object.keys(row), ['id', 'username', 'password']);
      assert.match(row.password ?? '', /^lcd_[A-Za-z0-9_-]{32}$/);
    }
  });

  it('access-points lists them (as JSON too), never a hash', async () => {
    const table = ok(await runAdmin(['access-points', ...data]));
    assert.match(table, /^ID +ACCOUNT +NAME +ONLINE +LAST SEEN$/m);
    assert.equal(table.trim().split('\n').length, 5);
    const rows = JSON.parse(
      ok(await runAdmin(['access-points', 'ann@example.com', '--json', ...data])),
    ) as Record<string, unknown>[];
    assert.deepEqual(
      rows.map((r) => r.name).sort(), // one batch shares its creation instant: then ordered by id
      ['Access point 1', 'Access point 2', 'Access point 3', 'Hall'],
    );
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'id',
      'account',
      'name',
      'online',
      'last_seen_at',
      'created_at',
    ]);
    assert.doesNotMatch(JSON.stringify(rows), /\$7\$|hash/i);
  });

  it('remove-ap removes one; an unknown id is refused', async () => {
    const [first] = JSON.parse(ok(await runAdmin(['access-points', '--json', ...data]))) as { id: string }[];
    assert.ok(first);
    assert.match(ok(await runAdmin(['remove-ap', first.id, ...data])), /removed access point/);
    refused(await runAdmin(['remove-ap', first.id, ...data]), 1, /no access point has the id/);
  });

  it('refuses a missing account, a bad count, a missing data directory', async () => {
    refused(await runAdmin(['register-ap', 'nobody@example.com', ...data]), 1, /no account has the e-mail/);
    refused(await runAdmin(['register-ap', 'ann@example.com', '--count', '0', ...data]), 1, /count/);
    refused(
      await runAdmin(['register-ap', 'ann@example.com', '--count', 'many', ...data]),
      2,
      /not a whole number/,
    );
    refused(await runAdmin(['access-points', '--data', join(dir, 'nope')]), 2, /no data directory/);
  });

  it('mqtt-acl refuses usage errors before writing anything', async () => {
    refused(await runAdmin(['mqtt-acl', ...data]), 2, /--out/);
    const out = ['--out', join(dir, 'mq')];
    refused(await runAdmin(['mqtt-acl', ...out, '--prefix', 'no-slash', ...data]), 2, /must end with "\/"/);
    refused(await runAdmin(['mqtt-acl', ...out, '--prefix', 'a/#/', ...data]), 2, /wildcards/);
    refused(await runAdmin(['mqtt-acl', ...out, '--cloud-password', 'short', ...data]), 2, /16 printable/);
  });
});
