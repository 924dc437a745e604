import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { answer, OTHER, OWNER, standardSeed, startServer, type TestServer } from '../../support/server.ts';
import { expectAnswer, FLAGS, JSON_UTF8, listLocks, login, postLogin, V1, v1 } from './helpers.ts';

const UNVERIFIED = 'new@example.com';
const SOCIAL = 'social@example.com';

function loginSeed(): Seed {
  const seed = standardSeed();
  return {
    ...seed,
    accounts: [
      ...(seed.accounts ?? []),
      { email: UNVERIFIED, password: 'new-password', verified: false },
      { email: SOCIAL, password: null, verified: true },
    ],
  };
}

describe('POST /v1/accounts/login', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: loginSeed(), flags: FLAGS });
  });
  after(() => t.close());

  it('answers 200 with exactly {"authorization"}: a token that opens GET /v1/locks', async () => {
    const res = await postLogin(t, { email: OWNER, password: 'owner-password' });
    assert.equal(res.headers.get('content-type'), JSON_UTF8);
    const { status, body } = await answer(res);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body as object), ['authorization']);
    const token = (body as { authorization: string }).authorization;
    assert.equal(typeof token, 'string');
    // At least 128 random bits, in any text encoding: 22 characters or more.
    assert.ok(token.length >= 22, `token of ${token.length} characters`);
    assert.equal((await listLocks(t, token)).status, 200);
  });

  it('takes the e-mail in any case, and with spaces around it', async () => {
    for (const email of ['OWNER@EXAMPLE.COM', 'Owner@Example.com', ` ${OWNER} `]) {
      const token = await login(t, email, 'owner-password');
      assert.equal((await listLocks(t, token)).status, 200, email);
    }
  });

  it('gives a different token on each login, and the earlier token stays valid', async () => {
    const first = await login(t, OWNER);
    const second = await login(t, OWNER);
    assert.notEqual(first, second);
    assert.equal((await listLocks(t, first)).status, 200);
    assert.equal((await listLocks(t, second)).status, 200);
  });

  it('ignores fields beyond email and password', async () => {
    const res = await postLogin(t, { email: OWNER, password: 'owner-password', remember: true });
    assert.equal(res.status, 200);
  });

  it('answers 10000 for an email or password that is missing, empty or not a string', async () => {
    const bodies: unknown[] = [
      {},
      { password: 'owner-password' },
      { email: OWNER },
      { email: '', password: 'owner-password' },
      { email: '   ', password: 'owner-password' },
      { email: OWNER, password: '' },
      { email: null, password: 'owner-password' },
      { email: OWNER, password: null },
      { email: 42, password: 'owner-password' },
      { email: OWNER, password: 12345678 },
      { email: [OWNER], password: 'owner-password' },
      { email: OWNER, password: ['owner-password'] },
      { email: { address: OWNER }, password: 'owner-password' },
      { email: OWNER, password: true },
    ];
    for (const body of bodies)
      await expectAnswer(await postLogin(t, body), V1.REQUIRED, JSON.stringify(body));
  });

  it('answers 10000 for a body that is not valid JSON, not an object, absent or not JSON', async () => {
    for (const raw of ['{"email":', '{bad', 'null', '[]', '"owner@example.com"', '42', 'true', '']) {
      await expectAnswer(await v1(t, '/accounts/login', { method: 'POST', raw }), V1.REQUIRED, raw);
    }
    await expectAnswer(await v1(t, '/accounts/login', { method: 'POST' }), V1.REQUIRED, 'no body');
    const plain = await v1(t, '/accounts/login', {
      method: 'POST',
      raw: JSON.stringify({ email: OWNER, password: 'owner-password' }),
      headers: { 'content-type': 'text/plain' },
    });
    await expectAnswer(plain, V1.REQUIRED, 'text/plain');
  });

  it('answers 10001 for an e-mail that is not of e-mail form', async () => {
    for (const email of [
      'owner',
      'owner@',
      '@example.com',
      'owner@example',
      'own er@example.com',
      'a@b@c.com',
    ]) {
      await expectAnswer(await postLogin(t, { email, password: 'owner-password' }), V1.INVALID_EMAIL, email);
    }
  });

  it('checks presence before form: a malformed e-mail without a password is 10000', async () => {
    await expectAnswer(await postLogin(t, { email: 'owner' }), V1.REQUIRED);
    await expectAnswer(await postLogin(t, { email: 'owner', password: '' }), V1.REQUIRED);
  });

  it('answers the same 10002 for an unknown e-mail and a wrong password', async () => {
    await expectAnswer(
      await postLogin(t, { email: 'nobody@example.com', password: 'owner-password' }),
      V1.WRONG_CREDENTIALS,
    );
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'wrong-password' }),
      V1.WRONG_CREDENTIALS,
    );
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'OWNER-PASSWORD' }),
      V1.WRONG_CREDENTIALS,
    );
    // Another account's password is a wrong password.
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'other-password' }),
      V1.WRONG_CREDENTIALS,
    );
  });

  it('answers 403 31000 for an unverified account with the right password, 10002 with a wrong one', async () => {
    await expectAnswer(await postLogin(t, { email: UNVERIFIED, password: 'new-password' }), V1.NOT_VERIFIED);
    await expectAnswer(await postLogin(t, { email: UNVERIFIED, password: 'wrong' }), V1.WRONG_CREDENTIALS);
  });

  it('answers 403 31001 for an account without a password, whatever password is sent', async () => {
    for (const password of ['anything', 'owner-password', 'null', 'x']) {
      await expectAnswer(await postLogin(t, { email: SOCIAL, password }), V1.ACCOUNT_LOCKED, password);
    }
    await expectAnswer(await postLogin(t, { email: 'SOCIAL@example.com', password: 'x' }), V1.ACCOUNT_LOCKED);
  });
});

describe('POST /v1/accounts/login: a deleted account', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  it('answers 10002 with its right password, as for an unknown e-mail', async () => {
    const res = await t.request(`/_sim/accounts/${OTHER}`, { method: 'POST', json: { deleted: true } });
    assert.equal(res.status, 200);
    await expectAnswer(
      await postLogin(t, { email: OTHER, password: 'other-password' }),
      V1.WRONG_CREDENTIALS,
    );
    await expectAnswer(await postLogin(t, { email: OTHER, password: 'wrong' }), V1.WRONG_CREDENTIALS);
    // The other account is not touched.
    await login(t, OWNER);
  });
});
