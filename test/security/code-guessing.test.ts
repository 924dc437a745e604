/**
 * Issue 17, point 5: each new code gave 5 more attempts, so one address got about 5 guesses a minute
 * per account for ever (216,000 in 30 days: about a 19 % chance of guessing a 6-digit code). Now the
 * attempts for one e-mail address and purpose are capped across all its codes and from every
 * address (DEFAULT_ACCOUNT_LIMITS.codeTriesPerEmail, in the rate-limit store). Here an attacker who
 * knows the address requests a fresh code whenever it may and guesses without pause for 30 days of
 * the sandbox clock (moved by each Retry-After, nothing sleeps), from a new address every time: the
 * guesses the server checks must stay within the cap, whose figure docs/security.md states. The
 * owner, meanwhile, can still recover the account once the cap has refilled; and two processes on
 * one Redis count as one.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_ACCOUNT_LIMITS } from '../../src/app/accounts/limits.ts';
import { carriedOut, FormClient, latestCode } from '../dashboard/support.ts';
import { type SharedBackends, sharedBackends, warmUp } from '../http/rate-limits/helpers.ts';
import { advanceClock, OWNER, standardSeed, startServer, type TestServer } from '../support/server.ts';

const DAY_S = 24 * 60 * 60;
const WINDOW_S = 30 * DAY_S;
const { burst, intervalMs } = DEFAULT_ACCOUNT_LIMITS.codeTriesPerEmail;
/** The most checks a 30-day window allows: the burst, then one per interval (docs/security.md). */
const CAP = burst + Math.floor((WINDOW_S * 1000) / intervalMs);
const UNVERIFIED = 'waiting@example.com';

/** A different code from the one mailed: a guess that is certainly wrong. */
const wrong = (code: string) => code.slice(0, 5) + String((Number(code[5]) + 1) % 10);

let n = 0;
const newAddress = () => ({ 'x-forwarded-for': `10.7.${Math.floor(n / 250) % 250}.${(n++ % 250) + 1}` });

interface Attack {
  /** How much server clock the attack took (it stops early once over the cap). */
  readonly days: number;
  readonly checked: number;
  readonly refused: number;
  readonly requests: number;
}

/**
 * Guesses `purpose` codes for `email` for 30 days of server clock: asks for a new code (it is mailed
 * to the owner; the attacker only makes it live), guesses, and when refused waits the Retry-After.
 * Stops early once more than `stopAfter` guesses were checked (the code before the fix never refuses).
 */
async function attack(
  t: TestServer,
  purpose: 'reset' | 'signup',
  email: string,
  stopAfter: number,
): Promise<Attack> {
  const c = new FormClient(t);
  await c.get('/dashboard/login');
  const started = Number(((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms);
  let elapsedS = 0;
  let checked = 0;
  let refused = 0;
  let requests = 0;
  while (elapsedS < WINDOW_S && checked <= stopAfter) {
    if (purpose === 'reset') await c.post('/dashboard/forgot', { email }, newAddress());
    else await c.post('/dashboard/verify/resend', { email }, newAddress());
    const live = await latestCode(t, email, purpose === 'reset' ? /password code/ : /verification code/);
    const path = purpose === 'reset' ? '/dashboard/reset' : '/dashboard/verify';
    const fields = { email, code: wrong(live), password: 'a-new-long-password' };
    // A refused guess redirects (Post/Redirect/Get): its page answers with the refusal's status.
    const res = await c.send(path, fields, newAddress());
    assert.equal(res.posted, 303);
    requests++;
    // A 400 is a guess the server checked (its words are test/security/enumeration's business).
    if (res.status === 400) {
      checked++;
    } else {
      assert.equal(res.status, 429, res.text.slice(0, 300));
      refused++;
      const wait = Number(res.res.headers.get('retry-after'));
      assert.ok(wait >= 1, 'a refusal says when to come back');
      await advanceClock(t, wait);
    }
    const now = Number(((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms);
    elapsedS = (now - started) / 1000;
  }
  return { days: elapsedS / DAY_S, checked, refused, requests };
}

describe('guessing reset and sign-up codes: capped per address and purpose, across codes', () => {
  let t: TestServer;
  beforeEach(async () => {
    const seed = standardSeed();
    seed.accounts?.push({ email: UNVERIFIED, password: 'waiting-password', verified: false });
    t = await startServer({ seed, flags: ['--trust-proxy', 'loopback'] });
  });
  afterEach(() => t.close());

  it(`30 days of guessing reset codes from ever new addresses: at most ${CAP} guesses checked`, async (ctx) => {
    const result = await attack(t, 'reset', OWNER, CAP);
    ctx.diagnostic(
      `reset: ${result.checked} guesses checked over ${result.days.toFixed(2)} days of server clock (${result.refused} refused 429, ${result.requests} tries); chance of guessing <= ${result.checked}/10^6`,
    );
    assert.ok(result.checked <= CAP, `${result.checked} guesses checked, more than ${CAP}`);
    // The cap is what stops the attacker, not some other limit first: it is reached (the last refill
    // falls on the 30th day itself, a few seconds late from whole-second Retry-After waits).
    assert.ok(result.checked >= CAP - 1, `only ${result.checked} guesses were checked`);
    assert.ok(CAP / 1e6 < 1e-4);
  });

  it(`30 days of guessing sign-up codes: at most ${CAP} guesses checked`, async (ctx) => {
    const result = await attack(t, 'signup', UNVERIFIED, CAP);
    ctx.diagnostic(
      `signup: ${result.checked} guesses checked over ${result.days.toFixed(2)} days of server clock (${result.refused} refused 429)`,
    );
    assert.ok(result.checked <= CAP && result.checked >= CAP - 1, `${result.checked} guesses checked`);
  });

  it('the cap answers alike for an address without an account, and holds per purpose', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const guess = (email: string) =>
      c.send('/dashboard/reset', { email, code: '000000', password: 'a-new-long-password' }, newAddress());
    for (let i = 0; i < burst; i++) {
      assert.equal((await guess(OWNER)).status, 400);
      assert.equal((await guess('nobody@example.com')).status, 400);
    }
    const known = await guess(OWNER);
    const unknown = await guess('nobody@example.com');
    for (const res of [known, unknown]) {
      assert.equal(res.status, 429);
      assert.match(res.text, /Too many attempts\. Try again in \d+ h\./);
    }
    // The same wait, counted down between the two answers (each is a POST and its page): a second apart at most.
    const waits = [known, unknown].map((res) => Number(res.res.headers.get('retry-after')));
    assert.ok(
      waits[0] !== undefined && waits[1] !== undefined && Math.abs(waits[0] - waits[1]) <= 1,
      `${waits}`,
    );
    assert.ok((waits[0] ?? 0) > 3600, 'the code budget of the address, in hours');
    // The reset codes' cap leaves the owner's other codes alone: API Settings still check theirs.
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    await owner.post('/dashboard/api-settings/code', {});
    const code = await latestCode(t, OWNER, /API Settings code/);
    assert.ok(carriedOut(await owner.post('/dashboard/api-settings/confirm', { code })));
  });

  it('the owner recovers once the cap refills: the right code then works', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    for (let i = 0; i <= burst; i++)
      await c.post(
        '/dashboard/reset',
        { email: OWNER, code: '000000', password: 'x-long-password' },
        newAddress(),
      );
    await c.post('/dashboard/forgot', { email: OWNER }, newAddress());
    const code = await latestCode(t, OWNER, /password code/);
    const fields = { email: OWNER, code, password: 'owner-new-password' };
    const held = await c.send('/dashboard/reset', fields, newAddress());
    assert.equal(held.status, 429, 'even the right code waits for the cap');
    await advanceClock(t, Number(held.res.headers.get('retry-after')));
    // The code has expired meanwhile: the owner asks for a new one and uses it.
    await c.post('/dashboard/forgot', { email: OWNER }, newAddress());
    const fresh = await latestCode(t, OWNER, /password code/);
    const set = await c.post('/dashboard/reset', { ...fields, code: fresh }, newAddress());
    assert.ok(carriedOut(set));
    await new FormClient(t).logIn(OWNER, 'owner-new-password');
  });
});

describe('the cap holds across server processes sharing Redis', () => {
  let shared: SharedBackends;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    shared = await sharedBackends('codes-redis');
    const flags = ['--trust-proxy', 'loopback', ...shared.flags];
    a = await startServer({ dataDir: shared.dataDir, flags });
    b = await startServer({ dataDir: shared.dataDir, flags });
    await warmUp(a, b);
  });
  after(async () => {
    await a.close();
    await b.close();
    await shared.drop();
  });

  it(`guesses spread over two processes spend one budget of ${burst}`, async () => {
    const clients = [new FormClient(a), new FormClient(b)];
    for (const c of clients) await c.get('/dashboard/login');
    const statuses: number[] = [];
    for (let i = 0; i < burst + 2; i++) {
      const c = clients[i % 2] as FormClient;
      const fields = { email: OWNER, code: '000000', password: 'a-new-long-password' };
      statuses.push((await c.send('/dashboard/reset', fields, newAddress())).status);
    }
    assert.deepEqual(statuses, [...Array<number>(burst).fill(400), 429, 429]);
  });
});
