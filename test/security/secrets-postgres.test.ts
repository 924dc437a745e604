/**
 * Issue 11, point 5, on PostgreSQL: the same secrets flow as secrets-sqlite.test.ts against a server
 * process on a fresh database of the machine's PostgreSQL; then `pg_dump` of that database (every
 * table's rows as text, bytea as hex) and the server's output hold none of the plaintexts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { type ServerProcess, startProcess } from '../support/process.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { describeFindings, Plaintexts } from './plaintexts.ts';
import { Recorder } from './recorder.ts';
import { errorAnswerFindings, outputFindings } from './secrets-checks.ts';
import { type CliRun, exercise, seededSecrets } from './secrets-flow.ts';

describe('secrets at rest, in logs and in error answers (PostgreSQL, a server process)', () => {
  const secrets = new Plaintexts();
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-secrets-pg-'));
  let db: TestDatabase;
  let receiver: Receiver;
  let server: ServerProcess;
  let http: Recorder;
  let runs: CliRun[] = [];
  let dump = '';
  let logs = '';

  before(async () => {
    db = await createTestDatabase();
    receiver = await startReceiver();
    const { seed, serverKey } = seededSecrets(secrets, receiver.url);
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    const data = join(dir, 'data');
    mkdirSync(data);
    server = await startProcess(
      ['--data', data, '--database-url', db.url, '--seed', seedFile, '--log-level', 'debug'],
      { LOG_LEVEL: 'debug', LOCKCLOUD_SECRET_KEY: serverKey },
    );
    http = new Recorder(server.url);
    const adminEnv = { DATABASE_URL: db.url, LOCKCLOUD_DATA: data, LOCKCLOUD_SECRET_KEY: serverKey };
    runs = await exercise(http, secrets, receiver, adminEnv);
    await server.stop();
    logs = server.stdout() + server.stderr();
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', db.url], {
      maxBuffer: 64 * 1024 * 1024,
    });
    dump = stdout;
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pg_dump of the database holds none of them (and is the data: the accounts are in it)', () => {
    assert.match(dump, /newcomer@example\.com/);
    const findings = secrets.find(dump, 'pg_dump');
    assert.deepEqual(findings, [], describeFindings(findings));
  });

  it("the server's output, the admin CLI's and the error answers hold none of them", () => {
    const findings = [
      ...secrets.find(logs, 'server output'),
      ...outputFindings(secrets, runs),
      ...errorAnswerFindings(secrets, http.answers),
    ];
    assert.deepEqual(findings, [], describeFindings(findings));
  });
});
