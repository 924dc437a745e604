/**
 * Issue 11, point 5, on the default store: after secrets-flow.ts has used every kind of secret
 * against `npm start` (a process of its own, logging at debug, production password hashing), none of
 * them is found in clear or in an obvious encoding in the SQLite files (the database, its -wal and
 * -shm, while the server runs and after it stopped), in anything the server or the admin CLI wrote
 * to stdout or stderr, or in any error answer. What may show a secret, by design: a 2xx answer to
 * the client that made it (a v1 token, a key or webhook secret shown once), Set-Cookie giving a
 * browser its own cookie, a page's form carrying its CSRF token (re-rendered with an error too: it
 * goes to the browser it belongs to), and the CLI printing, once, a secret it has just made.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, startProcess } from '../support/process.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { describeFindings, type Finding, Plaintexts } from './plaintexts.ts';
import { Recorder } from './recorder.ts';
import { errorAnswerFindings, outputFindings } from './secrets-checks.ts';
import { type CliRun, exercise, seededSecrets } from './secrets-flow.ts';

describe('secrets at rest, in logs and in error answers (SQLite, a server process)', () => {
  const secrets = new Plaintexts();
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-secrets-'));
  const data = join(dir, 'data');
  let receiver: Receiver;
  let server: ServerProcess;
  let http: Recorder;
  let runs: CliRun[] = [];
  const whileRunning = new Map<string, Buffer>();
  let logs = '';

  const dataFiles = (): Map<string, Buffer> =>
    new Map(readdirSync(data).map((name) => [name, readFileSync(join(data, name))]));

  before(async () => {
    receiver = await startReceiver();
    const { seed, serverKey } = seededSecrets(secrets, receiver.url);
    // The seed file is the test's own input: outside the data directory searched below.
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    mkdirSync(data);
    server = await startProcess(['--data', data, '--seed', seedFile, '--log-level', 'debug'], {
      LOG_LEVEL: 'debug',
      LOCKCLOUD_SECRET_KEY: serverKey,
    });
    http = new Recorder(server.url);
    runs = await exercise(http, secrets, receiver, { LOCKCLOUD_DATA: data, LOCKCLOUD_SECRET_KEY: serverKey });
    for (const [name, bytes] of dataFiles()) whileRunning.set(`${name} (server running)`, bytes);
    await server.stop();
    logs = server.stdout() + server.stderr();
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('made every kind of secret, and the search finds them where they are legitimately shown', () => {
    const kinds = new Set(secrets.all.map((p) => p.kind));
    for (const kind of [
      'password',
      'v1 token',
      'api key',
      'webhook secret',
      'code',
      'session',
      'csrf',
      'oauth client secret',
      'oauth code',
      'oauth token',
    ] as const)
      assert.ok(kinds.has(kind), `no ${kind} was exercised`);
    // The search is not blind: the once-shown key is in the page that showed it, and so on.
    const shown = http.answers
      .filter((a) => a.status < 300)
      .map((a) => a.body)
      .join('\n');
    const found = new Set(secrets.find(shown, '2xx answers').map((f) => f.label));
    for (const label of [
      'v1 token of owner',
      'made in the dashboard',
      'set over /ext',
      'rotated in the dashboard',
      'client secret made in the dashboard',
      'refresh token',
    ])
      assert.ok(found.has(label), `${label} not found where it was shown`);
    assert.ok(logs.includes('"level":20') || logs.includes('"level":30'), 'the server logged');
  });

  it('the SQLite files hold none of them, while the server runs and after it stopped', () => {
    const findings: Finding[] = [];
    assert.ok(
      [...whileRunning.keys()].some((name) => name.startsWith('lockcloud.sqlite-wal')),
      'a WAL was read',
    );
    for (const [name, bytes] of [...whileRunning, ...dataFiles()])
      findings.push(...secrets.find(bytes, name));
    assert.deepEqual(findings, [], describeFindings(findings));
  });

  it("the server's stdout and stderr (debug level) hold none of them", () => {
    const findings = secrets.find(logs, 'server output');
    assert.deepEqual(findings, [], describeFindings(findings));
  });

  it('the admin CLI prints a secret only where it has just made it, and never a password', () => {
    const findings = outputFindings(secrets, runs);
    assert.deepEqual(findings, [], describeFindings(findings));
  });

  it('no error answer holds any of them (a re-rendered form may carry its own CSRF token)', () => {
    const findings = errorAnswerFindings(secrets, http.answers);
    assert.ok(http.answers.filter((a) => a.status >= 400).length >= 15, 'errors were provoked');
    assert.deepEqual(findings, [], describeFindings(findings));
  });
});
