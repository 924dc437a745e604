/**
 * Issue 17 point 11, end to end: `lockcloud serve` given a password in each setting that can hold
 * one prints it nowhere, whether the value is refused (exit 2), points at a service that is not
 * there or refuses it (exit 2), or is used once the server runs (SMTP, failing at the first mail).
 * Everything the process writes, at log level debug, is searched. Unit-level forms:
 * test/unit/config/secrets.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FormClient } from '../dashboard/support.ts';
import { REDIS_URL } from '../support/cluster.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/mosquitto.ts';
import { PG_ADMIN_URL } from '../support/postgres.ts';
import { startProcess } from '../support/process.ts';
import type { TestServer } from '../support/server.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

interface Exit {
  readonly code: number | null;
  readonly output: string;
}

/** Runs `lockcloud serve` until it exits (it must, within 30 s); stdout and stderr together. */
function serveUntilExit(env: Record<string, string>, args: readonly string[]): Promise<Exit> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/bin/serve.ts', '--port', '0', '--mqtt-port', '0', ...args],
    { env: { ...process.env, LOG_LEVEL: 'debug', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not exit within 30 s:\n${output}`));
    }, 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function assertHidden(output: string, what: string): void {
  assert.ok(!output.includes(PASSWORD), `${what} printed the password:\n${output}`);
  assert.ok(!output.includes(encodeURIComponent(PASSWORD)), `${what} printed the password, encoded`);
}

describe('lockcloud serve never prints a secret setting', () => {
  let data: string;
  let closedPort: number;
  before(async () => {
    data = mkdtempSync(join(tmpdir(), 'lockcloud-secrets-'));
    closedPort = await freePort();
  });
  after(() => rmSync(data, { recursive: true, force: true }));

  it('refuses every bad secret setting at once, naming each, with no password', async () => {
    const { code, output } = await serveUntilExit(
      {
        DATABASE_URL: `mysql://admin:${PASSWORD}@db/x`,
        REDIS_URL: `http://admin:${PASSWORD}@host`,
        SMTP_URL: `admin:${PASSWORD}@mail:587`,
        MQTT_URL: `mqtt:admin:${PASSWORD}@broker`,
        LOCKCLOUD_SECRET_KEY: `${PASSWORD}-is-not-a-key`,
      },
      ['--data', data],
    );
    assert.equal(code, 2, output);
    for (const setting of ['databaseUrl', 'redisUrl', 'smtpUrl', 'mqttUrl', 'secretKey'])
      assert.match(output, new RegExp(`^ {2}${setting}: `, 'm'), output);
    assertHidden(output, 'a refused configuration');
  });

  const unreachable: Record<string, () => string> = {
    'PostgreSQL on a closed port': () => `postgres://lockcloud:${PASSWORD}@127.0.0.1:${closedPort}/lockcloud`,
    'PostgreSQL, no such database': () => {
      const url = new URL(PG_ADMIN_URL);
      url.password = PASSWORD;
      url.pathname = `/lockcloud_missing_${randomBytes(4).toString('hex')}`;
      return url.toString();
    },
  };
  for (const [what, url] of Object.entries(unreachable)) {
    it(`DATABASE_URL: ${what} stops the start (exit 2) without the password`, async () => {
      const { code, output } = await serveUntilExit({ DATABASE_URL: url() }, ['--data', data]);
      assert.equal(code, 2, output);
      assert.match(output, /lockcloud: cannot open the store/);
      assertHidden(output, what);
    });
  }

  it('REDIS_URL: a closed port, and a Redis that refuses the password, stop the start without it', async () => {
    const refusing = new URL(REDIS_URL);
    refusing.username = 'lockcloud-nobody';
    refusing.password = PASSWORD;
    for (const url of [`redis://admin:${PASSWORD}@127.0.0.1:${closedPort}`, refusing.toString()]) {
      const { code, output } = await serveUntilExit({ REDIS_URL: url }, ['--data', data]);
      assert.equal(code, 2, output);
      assert.match(output, /lockcloud: cannot reach Redis/);
      assertHidden(output, url.replace(PASSWORD, '<password>'));
    }
  });

  it('MQTT_URL: a broker that is not there stops the start without the password', async () => {
    const { code, output } = await serveUntilExit(
      { MQTT_URL: `mqtt://cloud:${PASSWORD}@127.0.0.1:${closedPort}` },
      ['--data', data],
    );
    assert.equal(code, 2, output);
    assert.match(output, /lockcloud: cannot start the device link/);
    assertHidden(output, 'an unreachable broker');
  });

  it('SMTP_URL and LOCKCLOUD_SECRET_KEY: the server runs, logs its settings and a failed mail, without either', async () => {
    const key = randomBytes(32).toString('base64');
    const server = await startProcess(['--data', data, '--log-level', 'debug'], {
      SMTP_URL: `smtp://mailer:${PASSWORD}@127.0.0.1:${closedPort}`,
      LOCKCLOUD_SECRET_KEY: key,
    });
    try {
      const form = new FormClient({ url: server.url } as TestServer);
      await form.get('/dashboard/signup');
      await form.post('/dashboard/signup', { email: 'someone@example.com', password: 'long-enough-pw' });
      await eventually('the failed mail to be logged', () =>
        server.stdout().includes('sending mail over SMTP failed'),
      ).catch(() => undefined); // the assertions below say what is missing
    } finally {
      await server.stop();
    }
    const output = server.stdout() + server.stderr();
    assert.match(output, /"smtpUrl":"smtp:\/\/\*\*\*@127\.0\.0\.1:\d+"/, 'the start-up line shows where');
    assert.match(output, /sending mail over SMTP failed/, 'the mail was tried and failed');
    assertHidden(output, 'a running server');
    assert.ok(!output.includes(key), 'the server key was printed');
  });
});
