/**
 * Issue 11, point 5 and issue 17, point 2: the dashboard forms anyone may fill in with any e-mail
 * address (login, sign-up, verify, resend, forgot password, reset) must not tell whether the address
 * has an account, nor what kind: a known, an unknown, an unverified, a deleted and a password-less
 * (social login) address get the same status and body, cause the same work, and spend the client
 * address's budget alike. Work is counted, not timed: each case must hash or verify as many passwords
 * and compare as many code HMACs (bench/login-timing.ts measures the times themselves). v1 login
 * must keep telling a password-less account apart (31001, the published contract), with the same
 * work. The invitation form, signed in, must tell whether an address can take a grant, so it is budgeted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import { DEFAULT_ACCOUNT_LIMITS } from '../../src/app/accounts/limits.ts';
import { DEFAULT_LOGIN_LIMITS } from '../../src/app/login.ts';
import type { CodeHasher, PasswordHasher } from '../../src/app/ports.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, type LockcloudServer } from '../../src/main.ts';
import { FormClient, mails } from '../dashboard/support.ts';
import { freePort } from '../support/mosquitto.ts';
import { LOCK_B, OTHER, OWNER, standardSeed, startServer, type TestServer } from '../support/server.ts';

const KNOWN = OWNER;
const UNVERIFIED = 'waiting@example.com';
const DELETED = 'gone@example.com';
const SOCIAL = 'social@example.com';
const UNKNOWN = 'nobody@example.com';
/** Every kind of address a visitor may type. */
const KINDS = [UNKNOWN, KNOWN, UNVERIFIED, DELETED, SOCIAL] as const;

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

/** The server's code hasher, counting the comparisons of a typed code. */
const codeChecks = { count: 0 };
const countingCodes = (made: CodeHasher): CodeHasher => ({
  ...made,
  matches: (code, salt, stored) => {
    codeChecks.count++;
    return made.matches(code, salt, stored);
  },
});

/**
 * A form's answer as a browser meets it: the POST's status and Location (every form answers 303,
 * carried out or refused), then the page the redirect leads to, whose status, Retry-After and body
 * are the refusal's when it was refused.
 */
interface Answer {
  readonly posted: number;
  readonly location: string;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/**
 * An answer with the address it was about replaced, and the one-time handle of a redirect (random
 * for every answer), so answers for different addresses compare.
 */
function answerOf(
  r: { posted: number; location: string; status: number; text: string; res: Response },
  email: string,
): Answer {
  const strip = (s: string) => s.split(encodeURIComponent(email)).join('EMAIL').split(email).join('EMAIL');
  return {
    posted: r.posted,
    location: strip(r.location).replace(/(note|refused)=[A-Za-z0-9_-]{22}$/, '$1=HANDLE'),
    status: r.status,
    retryAfter: r.res.headers.get('retry-after') ?? undefined,
    body: strip(r.text),
  };
}

describe('every kind of e-mail address gets the same answers, the same work and the same budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-enum-'));
  const passwords = countingHasher();
  let server: LockcloudServer;
  let t: TestServer;
  let ip = 0;
  /** Each request from its own address: the per-address budgets are not what is tested here. */
  const from = (): Record<string, string> => ({ 'x-forwarded-for': fresh() });
  const fresh = (): string => `10.1.${Math.floor(ip / 250)}.${(ip++ % 250) + 1}`;

  before(async () => {
    const seed = standardSeed();
    seed.accounts?.push(
      { email: UNVERIFIED, password: 'waiting-password', verified: false },
      { email: DELETED, password: 'gone-password', verified: true },
      { email: SOCIAL, password: null, verified: true },
    );
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const argv = ['--port', '0', '--host', '127.0.0.1', '--data', join(dir, 'data'), '--log-level', 'silent'];
    argv.push('--mqtt-port', '0', '--seed', join(dir, 'seed.json'), '--trust-proxy', 'loopback');
    server = await createServer(loadConfig({}, argv), { passwords, codeHasher: countingCodes });
    const url = await server.listen();
    t = { url, request: (path: string, init?: RequestInit) => fetch(url + path, init) } as TestServer;
    const gone = await fetch(`${url}/_sim/accounts/${DELETED}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deleted: true }),
    });
    assert.equal(gone.status, 200);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const work = async (run: () => Promise<unknown>) => {
    const before = { hashes: passwords.hashes, verifies: passwords.verifies, codes: codeChecks.count };
    await run();
    return {
      hashes: passwords.hashes - before.hashes,
      verifies: passwords.verifies - before.verifies,
      codes: codeChecks.count - before.codes,
    };
  };

  /**
   * Posts `fields` for every kind of address and follows the redirect: one answer (the POST's and the
   * page's it leads to, `expected.status` being the page's) and one amount of work for all.
   */
  async function sameForEveryKind(
    path: string,
    fields: (email: string) => Record<string, string>,
    expected: { status: number; hashes: number; verifies: number; codes: number },
  ): Promise<Answer> {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const answers = new Map<string, Answer>();
    for (const email of KINDS) {
      let answer: Answer | undefined;
      const done = await work(async () => {
        answer = answerOf(await c.send(path, fields(email), from()), email);
      });
      assert.ok(answer);
      assert.equal(answer.posted, 303, `${path} ${email}: every form redirects`);
      assert.equal(answer.status, expected.status, `${path} ${email}: ${answer.body.slice(0, 300)}`);
      assert.deepEqual(
        done,
        { hashes: expected.hashes, verifies: expected.verifies, codes: expected.codes },
        `${path} ${email}`,
      );
      answers.set(email, answer);
    }
    const first = answers.get(UNKNOWN);
    for (const [email, answer] of answers) assert.deepEqual(answer, first, `${path}: ${email} vs ${UNKNOWN}`);
    return first as Answer;
  }

  it('v1 login: one password verified whatever the address holds; 10002 for all but a password-less account (31001)', async () => {
    const login = (email: string) =>
      fetch(`${t.url}/v1/accounts/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from() },
        body: JSON.stringify({ email, password: 'not-the-password' }),
      });
    for (const email of [...KINDS, UNKNOWN]) {
      let res: Response | undefined;
      const done = await work(async () => {
        res = await login(email);
      });
      const expected =
        email === SOCIAL
          ? { status: 403, body: { code: 31001, message: 'AccountLocked' } }
          : { status: 400, body: { code: 10002, message: 'WrongEmailOrPassword' } };
      assert.deepEqual({ status: res?.status, body: await res?.json() }, expected, email);
      assert.deepEqual(done, { hashes: 0, verifies: 1, codes: 0 }, email);
    }
  });

  it('dashboard login: the same answer and one password verified for each, a password-less account too', async () => {
    const answer = await sameForEveryKind(
      '/dashboard/login',
      (email) => ({ email, password: 'not-the-password' }),
      { status: 400, hashes: 0, verifies: 1, codes: 0 },
    );
    assert.equal(answer.location, '/dashboard/login?refused=HANDLE');
    assert.match(
      answer.body,
      /Wrong e-mail or password\. An account made with a social login has no password yet/,
    );
  });

  it('sign-up: the same redirect and one password hashed for each; what differs happens after the answer', async () => {
    const answer = await sameForEveryKind(
      '/dashboard/signup',
      (email) => ({ email, password: 'a-long-password' }),
      { status: 200, hashes: 1, verifies: 0, codes: 0 },
    );
    assert.equal(answer.location, '/dashboard/verify?ok=signed-up&email=EMAIL');
  });

  it('resend and forgot password: the same page or redirect for each, no work before the answer', async () => {
    const resend = await sameForEveryKind('/dashboard/verify/resend', (email) => ({ email }), {
      status: 200,
      hashes: 0,
      verifies: 0,
      codes: 0,
    });
    assert.equal(resend.location, '/dashboard/verify?ok=resent&email=EMAIL');
    const forgot = await sameForEveryKind('/dashboard/forgot', (email) => ({ email }), {
      status: 200,
      hashes: 0,
      verifies: 0,
      codes: 0,
    });
    assert.equal(forgot.location, '/dashboard/reset?ok=code-sent&email=EMAIL');
  });

  it('verify and reset: one refusal and one code comparison for each, while the accounts hold live codes', async () => {
    // Live codes where an account can have one: a sign-up code for the unverified account, reset
    // codes for every live account (the worst case: only real accounts have something to match).
    const c = new FormClient(t);
    await c.get('/dashboard/forgot');
    for (const email of KINDS) {
      await c.post('/dashboard/verify/resend', { email }, from());
      await c.post('/dashboard/forgot', { email }, from());
    }
    const codes = new Set<string>();
    for (const email of KINDS)
      for (const mail of await mails(t, email))
        for (const m of mail.text.matchAll(/\b\d{6}\b/g)) codes.add(m[0]);
    assert.ok(codes.size >= 4, `the live accounts got their codes (${codes.size})`);
    let wrong = 0;
    while (codes.has(String(wrong).padStart(6, '0'))) wrong++;
    const code = String(wrong).padStart(6, '0');

    const verify = await sameForEveryKind('/dashboard/verify', (email) => ({ email, code }), {
      status: 400,
      hashes: 0,
      verifies: 0,
      codes: 1,
    });
    assert.equal(verify.location, '/dashboard/verify?refused=HANDLE');
    assert.match(verify.body, /This code does not work for this address/);
    const reset = await sameForEveryKind(
      '/dashboard/reset',
      (email) => ({ email, code, password: 'a-long-password' }),
      { status: 400, hashes: 0, verifies: 0, codes: 1 },
    );
    assert.equal(reset.location, '/dashboard/reset?refused=HANDLE');
    assert.match(reset.body, /This code does not work for this address/);
  });

  it('forgot password, sign-up and resend answer alike once a known address has had its mails (no 429)', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/forgot');
    const answers = async (email: string) => {
      const out: string[] = [];
      for (let i = 0; i < 8; i++) {
        const forgot = await c.send('/dashboard/forgot', { email }, from());
        const signUp = await c.send('/dashboard/signup', { email, password: 'a-long-password' }, from());
        const resend = await c.send('/dashboard/verify/resend', { email }, from());
        const strip = (s: string) => s.replace(encodeURIComponent(email), 'EMAIL');
        out.push(
          `${forgot.posted} ${strip(forgot.location)} ${forgot.status}`,
          `${signUp.posted} ${strip(signUp.location)} ${signUp.status}`,
          `${resend.posted} ${resend.status} ${/If this address waits for verification/.test(resend.text)}`,
        );
      }
      return out;
    };
    const unknown = await answers('another-nobody@example.com');
    for (const email of [UNVERIFIED, KNOWN, DELETED, SOCIAL])
      assert.deepEqual(await answers(email), unknown, email);
    assert.ok(unknown.every((a) => !a.includes('429')));
    assert.ok(
      unknown.every((a) => a.endsWith(' 200') || a.endsWith(' true')),
      unknown.join('; '),
    );
    // The budget still holds: the mailbox was not flooded.
    const sent = await mails(t, UNVERIFIED);
    assert.ok(sent.length <= 8, `${sent.length} mails to ${UNVERIFIED}`);
  });

  it("every form spends the client address's budget whatever address it names: the next is refused alike", async () => {
    const { requestsPerIp, codeTriesPerIp } = DEFAULT_ACCOUNT_LIMITS;
    const forms: { path: string; burst: number; fields: (email: string) => Record<string, string> }[] = [
      {
        path: '/dashboard/login',
        burst: DEFAULT_LOGIN_LIMITS.perIp.burst,
        fields: (email) => ({ email, password: 'not-the-password' }),
      },
      {
        path: '/dashboard/signup',
        burst: requestsPerIp.burst,
        fields: (email) => ({ email, password: 'x' }),
      },
      { path: '/dashboard/forgot', burst: requestsPerIp.burst, fields: (email) => ({ email }) },
      // A code that is not 6 digits: refused by its shape, after the address's budget is spent.
      { path: '/dashboard/verify', burst: codeTriesPerIp.burst, fields: (email) => ({ email, code: 'x' }) },
      {
        path: '/dashboard/reset',
        burst: codeTriesPerIp.burst,
        fields: (email) => ({ email, code: 'x', password: 'a-long-password' }),
      },
    ];
    for (const { path, burst, fields } of forms) {
      const c = new FormClient(t);
      await c.get('/dashboard/login');
      const address = { 'x-forwarded-for': fresh() };
      const statuses: number[] = [];
      for (let i = 0; i < burst; i++)
        statuses.push((await c.send(path, fields(KINDS[i % 5] ?? UNKNOWN), address)).status);
      assert.ok(!statuses.includes(429), `${path}: ${statuses.join(' ')}`);
      const refused = [];
      for (const email of KINDS) refused.push(answerOf(await c.send(path, fields(email), address), email));
      for (const answer of refused) {
        assert.equal(answer.posted, 303, path);
        assert.equal(answer.location, `${path}?refused=HANDLE`);
        assert.equal(answer.status, 429, `${path}: ${answer.body.slice(0, 200)}`);
        assert.match(answer.body, /Too many attempts\. Try again in/);
        assert.ok(Number(answer.retryAfter) >= 1);
        // The wait counts down as the requests go: its figure (header and words) may differ by a second.
        const waitless = (a: Answer) => ({
          ...a,
          retryAfter: '',
          body: a.body.replace(/Try again in \d+ (s|min|h)\./, 'Try again in N $1.'),
        });
        assert.deepEqual(waitless(answer), waitless(refused[0] as Answer), path);
      }
    }
    // Resend shares sign-up's budget: spent by the sign-ups above, from another address alike.
    const c = new FormClient(t);
    await c.get('/dashboard/verify');
    const address = { 'x-forwarded-for': fresh() };
    for (let i = 0; i < requestsPerIp.burst; i++)
      await c.post('/dashboard/verify/resend', { email: KINDS[i % 5] ?? UNKNOWN }, address);
    for (const email of KINDS)
      assert.equal((await c.send('/dashboard/verify/resend', { email }, address)).status, 429, email);
  });
});

describe('the invitation form: it must tell whether an address can take a grant, so it is budgeted', () => {
  let t: TestServer;
  before(async () => {
    const seed = standardSeed();
    seed.accounts?.push(
      { email: UNVERIFIED, password: 'waiting-password', verified: false },
      { email: DELETED, password: 'gone-password', verified: true },
      { email: SOCIAL, password: null, verified: true },
    );
    t = await startServer({ seed, flags: ['--trust-proxy', 'loopback'] });
    await t.request(`/_sim/accounts/${DELETED}`, { method: 'POST', json: { deleted: true } });
  });
  after(() => t.close());

  it('answers alike for unknown, unverified and deleted addresses; invites a live one; then 429 for the address', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    const address = { 'x-forwarded-for': '10.9.0.1' };
    const share = async (email: string) =>
      answerOf(await c.send(`/dashboard/locks/${LOCK_B}/grants`, { email, role: 'view' }, address), email);
    const refusals = [await share(UNKNOWN), await share(UNVERIFIED), await share(DELETED)];
    for (const r of refusals) {
      assert.deepEqual([r.posted, r.location], [303, '/dashboard/locks?refused=HANDLE']);
      assert.equal(r.status, 400);
      assert.match(r.body, /No lockcloud account can be invited at that address\./);
      assert.deepEqual(r, refusals[0]);
    }
    assert.match(
      (await share(SOCIAL)).body,
      /EMAIL is invited to Back door/,
      'a password-less account can take a grant',
    );
    assert.match((await share(OTHER)).body, /EMAIL is invited to Back door/);
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_ACCOUNT_LIMITS.requestsPerIp.burst; i++)
      statuses.push((await share(`someone-${i}@example.com`)).status);
    const refused = await share(UNKNOWN);
    assert.equal(refused.status, 429, statuses.join(' '));
    assert.ok(Number(refused.retryAfter) >= 1);
  });
});

describe('with a mail server that refuses every connection', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--smtp-url', `smtp://127.0.0.1:${await freePort()}`] });
  });
  after(() => t.close());

  it('forgot password, resend and sign-up answer a known address as an unknown one: the mail fails after the answer', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/forgot');
    const answer = async (path: string, email: string, fields: Record<string, string> = {}) => {
      const res = await c.post(path, { email, ...fields });
      return `${res.status} ${res.res.headers.get('location')?.replace(encodeURIComponent(email), 'EMAIL')}`;
    };
    assert.equal(await answer('/dashboard/forgot', OWNER), await answer('/dashboard/forgot', UNKNOWN));
    assert.equal(await answer('/dashboard/forgot', OWNER), '303 /dashboard/reset?ok=code-sent&email=EMAIL');
    const signUp = { password: 'a-long-password' };
    assert.equal(
      await answer('/dashboard/signup', OWNER, signUp),
      await answer('/dashboard/signup', UNKNOWN, signUp),
    );
    const resend = async (email: string) => (await c.post('/dashboard/verify/resend', { email })).status;
    await c.post('/dashboard/signup', { email: 'pending@example.com', password: 'a-long-password' });
    assert.equal(await resend('pending@example.com'), await resend(UNKNOWN));
  });
});
