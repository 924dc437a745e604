/**
 * Login brute force (docs/decisions.md): limited per e-mail and per client address, 429 42900 with
 * Retry-After. These servers run WITHOUT --no-rate-limit; windows end by moving the sandbox clock.
 * The defaults (DEFAULT_LOGIN_LIMITS): 10 failed attempts per e-mail from one address, then one a
 * minute; 30 attempts per address, then one every 10 s; 20 per e-mail from clients that have not
 * logged in to it, then one every 5 minutes (test/security/login-lockout.test.ts: many addresses).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_LOGIN_LIMITS } from '../../../src/app/login.ts';
import { advanceClock, answer, OTHER, OWNER, startServer, type TestServer } from '../../support/server.ts';
import { expectAnswer, listLocks, login, postLogin, retryAfter, V1 } from './helpers.ts';

const PER_EMAIL = DEFAULT_LOGIN_LIMITS.failuresPerEmailAndIp.burst;
const PER_IP = DEFAULT_LOGIN_LIMITS.perIp.burst;

describe('POST /v1/accounts/login: brute-force limits', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('refuses an e-mail from an address after its burst of failed attempts with 429 42900 and Retry-After, even the right password', async () => {
    for (let i = 0; i < PER_EMAIL; i++) {
      await expectAnswer(
        await postLogin(t, { email: OWNER, password: `guess-${i}` }),
        V1.WRONG_CREDENTIALS,
        `#${i}`,
      );
    }
    const refused = await postLogin(t, { email: OWNER, password: 'owner-password' });
    await expectAnswer(refused, V1.TOO_MANY);
    const wait = retryAfter(refused);
    assert.ok(wait <= DEFAULT_LOGIN_LIMITS.failuresPerEmailAndIp.intervalMs / 1000, `Retry-After ${wait}`);
    // Case and spaces do not make it another e-mail.
    await expectAnswer(
      await postLogin(t, { email: ' Owner@Example.COM', password: 'owner-password' }),
      V1.TOO_MANY,
    );

    // Another e-mail from the same address is not held back by this one's limit.
    await login(t, OTHER);

    await advanceClock(t, wait);
    const token = await login(t, OWNER);
    assert.equal((await listLocks(t, token)).status, 200);
  });

  it('refuses a client address after its burst across different e-mails, whatever e-mail comes next', async () => {
    for (let i = 0; i < PER_IP; i++) {
      await expectAnswer(
        await postLogin(t, { email: `guess-${i}@example.com`, password: 'secret-guess' }),
        V1.WRONG_CREDENTIALS,
        `#${i}`,
      );
    }
    const refused = await postLogin(t, { email: OWNER, password: 'owner-password' });
    await expectAnswer(refused, V1.TOO_MANY);
    const wait = retryAfter(refused);
    assert.ok(wait <= DEFAULT_LOGIN_LIMITS.perIp.intervalMs / 1000, `Retry-After ${wait}`);
    // Malformed attempts from a throttled address are throttled too: the address is checked first.
    await expectAnswer(await postLogin(t, {}), V1.TOO_MANY);
    await expectAnswer(await postLogin(t, { email: OTHER, password: 'other-password' }), V1.TOO_MANY);

    await advanceClock(t, wait);
    await login(t, OWNER);
  });

  it('never throttles a client whose logins succeed, however often (only failures count per e-mail)', async () => {
    for (let i = 0; i < PER_EMAIL * 2; i++) {
      const { status } = await answer(await postLogin(t, { email: OWNER, password: 'owner-password' }));
      assert.equal(status, 200, `login #${i}`);
    }
  });

  it('never throttles a client that mistypes once a minute', async () => {
    for (let i = 0; i < PER_EMAIL + 5; i++) {
      await expectAnswer(
        await postLogin(t, { email: OWNER, password: 'typo' }),
        V1.WRONG_CREDENTIALS,
        `#${i}`,
      );
      await advanceClock(t, 60);
    }
    await login(t, OWNER);
  });

  it('keeps tokens issued before the flood valid while the e-mail is throttled', async () => {
    const token = await login(t, OWNER);
    for (let i = 0; i < PER_EMAIL; i++) await postLogin(t, { email: OWNER, password: 'nope' });
    await expectAnswer(await postLogin(t, { email: OWNER, password: 'owner-password' }), V1.TOO_MANY);
    assert.equal((await listLocks(t, token)).status, 200);
  });
});
