/**
 * Issue 11, point 5: the forms anyone may fill in with any e-mail address (v1 and dashboard login,
 * sign-up, resend, forgot password) must not tell whether the address has an account, by their
 * answer or by the work they do. Work is counted, not timed: each case must hash or verify exactly
 * one password (bench/login-timing.ts measures the times themselves). The answers are compared once
 * the known address's mail budget is spent, where a 429 used to give it away.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import type { PasswordHasher } from '../../src/app/ports.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, type LockcloudServer } from '../../src/main.ts';
import { FormClient } from '../dashboard/support.ts';
import { freePort } from '../support/mosquitto.ts';
import { OWNER, standardSeed, startServer, type TestServer } from '../support/server.ts';

const KNOWN = 'owner@example.com';
const UNVERIFIED = 'waiting@example.com';
const DELETED = 'gone@example.com';
const UNKNOWN = 'nobody@example.com';

/** scrypt at a test cost, counting the calls. */
function countingHasher(): PasswordHasher & { hashes: number; verifies: number } {
  const inner = scryptHasher({ N: 1024, r: 8, p: 1 });
  const counter = {
    hashes: 0,
    verifies: 0,
    hash: (password: string) => {
      counter.hashes++;
      return inner.hash(password);
    },
    verify: (password: string, stored: string) => {
      counter.verifies++;
      return inner.verify(password, stored);
    },
  };
  return counter;
}

describe('unknown and known e-mail addresses get the same answers and the same work', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-enum-'));
  const passwords = countingHasher();
  let server: LockcloudServer;
  let t: TestServer;
  let ip = 0;
  /** Each request from its own address: the per-address budgets are not what is tested here. */
  const from = (): Record<string, string> => ({
    'x-forwarded-for': `10.1.${Math.floor(ip / 250)}.${(ip++ % 250) + 1}`,
  });

  before(async () => {
    const seed = standardSeed();
    seed.accounts?.push(
      { email: UNVERIFIED, password: 'waiting-password', verified: false },
      { email: DELETED, password: 'gone-password', verified: true },
    );
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const argv = ['--port', '0', '--host', '127.0.0.1', '--data', join(dir, 'data'), '--log-level', 'silent'];
    argv.push('--mqtt-port', '0', '--seed', join(dir, 'seed.json'), '--trust-proxy', 'loopback');
    server = await createServer(loadConfig({}, argv), { passwords });
    const url = await server.listen();
    t = { url } as TestServer;
    await server.store.accounts.findByEmail(DELETED).then(async (account) => {
      assert.ok(account);
      await server.store.accounts.update(account.id, { deletedAt: Date.now() });
    });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const work = async (run: () => Promise<unknown>) => {
    const before = { hashes: passwords.hashes, verifies: passwords.verifies };
    await run();
    return { hashes: passwords.hashes - before.hashes, verifies: passwords.verifies - before.verifies };
  };

  it('v1 login: one password verified whether the address is unknown, known, unverified or deleted', async () => {
    const login = (email: string) =>
      fetch(`${t.url}/v1/accounts/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from() },
        body: JSON.stringify({ email, password: 'not-the-password' }),
      });
    for (const email of [UNKNOWN, KNOWN, UNVERIFIED, DELETED, UNKNOWN]) {
      let res: Response | undefined;
      const done = await work(async () => {
        res = await login(email);
      });
      assert.deepEqual(
        { status: res?.status, body: await res?.json() },
        { status: 400, body: { code: 10002, message: 'WrongEmailOrPassword' } },
      );
      assert.deepEqual(done, { hashes: 0, verifies: 1 }, email);
    }
  });

  it('dashboard login: the same answer and one password verified for each', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const pages = new Set<string>();
    for (const email of [UNKNOWN, KNOWN, UNVERIFIED, DELETED]) {
      let text = '';
      const done = await work(async () => {
        const res = await c.post('/dashboard/login', { email, password: 'not-the-password' }, from());
        assert.equal(res.status, 400);
        text = res.text;
      });
      assert.deepEqual(done, { hashes: 0, verifies: 1 }, email);
      pages.add(/data-testid="notice">([^<]*)</.exec(text)?.[1] ?? text);
    }
    assert.equal(pages.size, 1, [...pages].join(' | '));
  });

  it('sign-up: one password hashed whether the address is new or taken', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    for (const email of ['fresh@example.com', KNOWN, UNVERIFIED]) {
      const done = await work(async () => {
        const res = await c.post('/dashboard/signup', { email, password: 'a-long-password' }, from());
        assert.equal(res.status, 303, email);
        assert.equal(
          res.res.headers.get('location'),
          `/dashboard/verify?ok=signed-up&email=${encodeURIComponent(email)}`,
        );
      });
      assert.deepEqual(done, { hashes: 1, verifies: 0 }, email);
    }
  });

  it('forgot password, sign-up and resend answer alike once a known address has had its mails (no 429)', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/forgot');
    const answers = async (email: string) => {
      const out: string[] = [];
      for (let i = 0; i < 8; i++) {
        const forgot = await c.post('/dashboard/forgot', { email }, from());
        const signUp = await c.post('/dashboard/signup', { email, password: 'a-long-password' }, from());
        const resend = await c.post('/dashboard/verify/resend', { email }, from());
        const strip = (s: string | null) => s?.replace(encodeURIComponent(email), 'EMAIL');
        out.push(
          `${forgot.status} ${strip(forgot.res.headers.get('location'))}`,
          `${signUp.status} ${strip(signUp.res.headers.get('location'))}`,
          `${resend.status} ${/If this address waits for verification/.test(resend.text)}`,
        );
      }
      return out;
    };
    const unknown = await answers('another-nobody@example.com');
    assert.deepEqual(await answers(UNVERIFIED), unknown);
    assert.deepEqual(await answers(KNOWN), unknown);
    assert.ok(unknown.every((a) => !a.startsWith('429')));
    // The budget still holds: the mailbox was not flooded.
    const mails = (await (await fetch(`${t.url}/_sim/mailbox?to=${UNVERIFIED}`)).json()) as unknown[];
    assert.ok(mails.length <= 6, `${mails.length} mails to ${UNVERIFIED}`);
  });
});

describe('with a mail server that refuses every connection', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--smtp-url', `smtp://127.0.0.1:${await freePort()}`] });
  });
  after(() => t.close());

  it('forgot password and resend answer a known address as an unknown one: the mail fails after the answer', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/forgot');
    const answer = async (path: string, email: string) => {
      const res = await c.post(path, { email });
      return `${res.status} ${res.res.headers.get('location')?.replace(encodeURIComponent(email), 'EMAIL')}`;
    };
    assert.equal(await answer('/dashboard/forgot', OWNER), await answer('/dashboard/forgot', UNKNOWN));
    assert.equal(await answer('/dashboard/forgot', OWNER), '303 /dashboard/reset?ok=code-sent&email=EMAIL');
    const resend = async (email: string) => (await c.post('/dashboard/verify/resend', { email })).status;
    await c.post('/dashboard/signup', { email: 'pending@example.com', password: 'a-long-password' });
    assert.equal(await resend('pending@example.com'), await resend(UNKNOWN));
  });
});
