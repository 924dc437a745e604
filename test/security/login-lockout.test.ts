/**
 * Issue 17, point 3: knowing the owner's e-mail was enough to lock them out. One wrong password a
 * second spread over 10 source addresses (each under its own limit) made the owner's right password
 * answer 429 8 times out of 8 over 80 s, on v1 (42900) and on the dashboard. Here the same attack
 * runs on the sandbox clock (one simulated second per round, nothing sleeps), the addresses given by
 * X-Forwarded-For behind --trust-proxy loopback: the owner logs in 20 times during it, by v1 from the
 * address they logged in from before and by the dashboard from a new address in the browser they
 * used before, and must get in at least 19 times in 20; the attackers' guesses stay capped by the
 * e-mail's budget for clients it does not know, every refusal in v1's documented 42900 shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_LOGIN_LIMITS } from '../../src/app/login.ts';
import { FormClient, refusedTo } from '../dashboard/support.ts';
import { advanceClock, OWNER, startServer, type TestServer } from '../support/server.ts';

const PASSWORD = 'owner-password';
const ATTACKERS = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`);
/** Where the owner's v1 client (a home automation, the phone app) has logged in from before. */
const OWNER_HOME = '198.51.100.7';
const ATTACK_SECONDS = 80;
const OWNER_EVERY = 4;

interface V1Answer {
  readonly status: number;
  readonly body: unknown;
  readonly retryAfter: string | null;
}

describe('a stranger who knows the e-mail cannot keep the owner out', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--trust-proxy', 'loopback'] });
  });
  after(() => t.close());

  const v1Login = async (address: string, password: string): Promise<V1Answer> => {
    const res = await t.request('/v1/accounts/login', {
      method: 'POST',
      headers: { 'x-forwarded-for': address },
      json: { email: OWNER, password },
    });
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
  };

  /**
   * A dashboard login from `address`; logs out again after a success (the browser keeps lc_device).
   * Answers 303 when it got in, else the status of the page a refusal redirects to.
   */
  const dashboardLogin = async (c: FormClient, address: string, password: string): Promise<number> => {
    await c.get('/dashboard/login');
    const res = await c.send('/dashboard/login', { email: OWNER, password }, { 'x-forwarded-for': address });
    if (refusedTo(res.location)) return res.status;
    await c.post('/dashboard/logout', {}, { 'x-forwarded-for': address });
    return res.posted;
  };

  it('the probe: 10 addresses guess once a second for 80 s; the owner gets in 19 times in 20 or more', async (ctx) => {
    // Before the attack the owner logged in as they always do: v1 from home, the dashboard in their browser.
    assert.equal((await v1Login(OWNER_HOME, PASSWORD)).status, 200);
    const browser = new FormClient(t);
    assert.equal(await dashboardLogin(browser, '198.51.100.8', PASSWORD), 303);

    const attackers = ATTACKERS.map(() => new FormClient(t));
    const guesses: { status: number; body: string; retryAfter: string | null }[] = [];
    const owner: string[] = [];
    for (let second = 0; second < ATTACK_SECONDS; second++) {
      // The attack: one wrong password a second, each address in turn (one every 10 s: under the
      // per-address limits), by v1 and by the dashboard's login form alternately.
      const a = second % ATTACKERS.length;
      const address = ATTACKERS[a] ?? '';
      if (second % 2 === 0) {
        const r = await v1Login(address, `guess-${second}`);
        guesses.push({ status: r.status, body: JSON.stringify(r.body), retryAfter: r.retryAfter });
      } else {
        const c = attackers[a] as FormClient;
        await c.get('/dashboard/login');
        // A refusal redirects to the login page, which answers with the refusal's status.
        const r = await c.send(
          '/dashboard/login',
          { email: OWNER, password: `guess-${second}` },
          {
            'x-forwarded-for': address,
          },
        );
        guesses.push({
          status: r.status,
          body: r.status === 429 ? 'throttled' : 'wrong',
          retryAfter: r.res.headers.get('retry-after'),
        });
      }
      // The owner, every 4 s: by v1 from home, or by the dashboard from the road (a new address, the
      // same browser).
      if (second % OWNER_EVERY === OWNER_EVERY - 1) {
        const round = owner.length;
        if (round % 2 === 0) {
          const r = await v1Login(OWNER_HOME, PASSWORD);
          owner.push(r.status === 200 ? 'in' : `v1 ${r.status} ${JSON.stringify(r.body)}`);
        } else {
          const status = await dashboardLogin(browser, `198.51.100.${100 + round}`, PASSWORD);
          owner.push(status === 303 ? 'in' : `dashboard ${status}`);
        }
      }
      await advanceClock(t, 1);
    }

    const inCount = owner.filter((o) => o === 'in').length;
    const evaluated = guesses.filter((g) => g.status === 400).length;
    const throttled = guesses.filter((g) => g.status === 429);
    ctx.diagnostic(
      `owner: ${inCount} of ${owner.length} logins got in; attackers: ${evaluated} of ${guesses.length} guesses checked, ${throttled.length} refused 429`,
    );
    assert.equal(owner.length, 20);
    assert.ok(inCount >= 19, `the owner got in ${inCount} times of 20: ${owner.join(', ')}`);

    // Capped: the e-mail's budget for clients it does not know, over 80 s, whatever the addresses.
    const { burst, intervalMs } = DEFAULT_LOGIN_LIMITS.perEmailFromNewClients;
    const cap = burst + Math.floor((ATTACK_SECONDS * 1000) / intervalMs);
    assert.ok(evaluated <= cap, `${evaluated} guesses were checked, more than ${cap}`);
    assert.equal(evaluated + throttled.length, guesses.length, 'every guess was refused or checked');
    for (const g of throttled) {
      assert.ok(Number(g.retryAfter) >= 1, 'a throttle says when to come back');
      if (g.body !== 'throttled') assert.equal(g.body, '{"code":42900,"message":"TooManyRequests"}');
    }
  });

  it('keeps the guesses capped for as long as the attack goes on (10 more minutes)', async (ctx) => {
    const { burst, intervalMs } = DEFAULT_LOGIN_LIMITS.perEmailFromNewClients;
    let evaluated = 0;
    const seconds = 600;
    for (let second = 0; second < seconds; second++) {
      const r = await v1Login(ATTACKERS[second % ATTACKERS.length] ?? '', `more-${second}`);
      if (r.status === 400) evaluated++;
      else assert.deepEqual(r.body, { code: 42900, message: 'TooManyRequests' });
      await advanceClock(t, 1);
    }
    ctx.diagnostic(`10 more minutes: ${evaluated} of ${seconds} guesses checked`);
    // The bucket was empty when this began: only what refilled over 10 minutes (plus the one it may
    // hold at the start) is checked.
    assert.ok(evaluated <= Math.floor((seconds * 1000) / intervalMs) + 1, `${evaluated} checked`);
    assert.ok(burst > 0);
    // Meanwhile the owner still gets in from home.
    assert.equal((await v1Login(OWNER_HOME, PASSWORD)).status, 200);
  });

  it('a client new to the account waits for the attack to stop: 429 with Retry-After, then it gets in', async () => {
    const first = await v1Login('192.0.2.50', PASSWORD);
    assert.deepEqual([first.status, first.body], [429, { code: 42900, message: 'TooManyRequests' }]);
    const wait = Number(first.retryAfter);
    assert.ok(wait >= 1 && wait <= DEFAULT_LOGIN_LIMITS.perEmailFromNewClients.intervalMs / 1000, `${wait}`);
    await advanceClock(t, wait);
    assert.equal((await v1Login('192.0.2.50', PASSWORD)).status, 200);
    // Now known: it is let through while the attack would go on.
    for (let i = 0; i < 5; i++) await v1Login(ATTACKERS[i] ?? '', 'another-guess');
    assert.equal((await v1Login('192.0.2.50', PASSWORD)).status, 200);
  });
});
