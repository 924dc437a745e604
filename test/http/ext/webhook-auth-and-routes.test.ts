/**
 * The extension API's webhook routes, black-box: the key check on every route, unknown /ext routes,
 * and requests refused before routing, each answer checked whole (status, exact body, JSON content
 * type, X-Request-Id).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { OWNER_KEY, standardSeed, startServer, type TestServer } from '../../support/server.ts';
import { FLAGS } from '../../support/webhooks.ts';
import { expectAnswer, expectExtError } from './helpers.ts';

const ROUTES: readonly (readonly [string, string])[] = [
  ['GET', '/ext/webhook'],
  ['PUT', '/ext/webhook'],
  ['DELETE', '/ext/webhook'],
  ['POST', '/ext/webhook/rotate-secret'],
  ['POST', '/ext/webhook/test'],
  ['GET', '/ext/webhook/deliveries'],
  ['POST', '/ext/webhook/deliveries/msg_0/resend'],
];

/** A third account, deleted by the authentication test. */
const GONE = 'gone@example.com';
const GONE_KEY = 'gone-api-key-0003';
const seed: Seed = (() => {
  const s = standardSeed();
  return {
    ...s,
    accounts: [...(s.accounts ?? []), { email: GONE, password: 'gone-password', verified: true }],
    api_keys: [...(s.api_keys ?? []), { account: GONE, key: GONE_KEY }],
  };
})();

const VALID = { url: 'http://127.0.0.1:9/hook/{device_id}/{state}' };

describe('/ext/webhook', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS, seed });
  });
  after(async () => {
    await t.close();
  });

  describe('authentication', () => {
    it('answers 401 {"error":"UNAUTHORIZED"} on every route without a key, with a bad key, or with a deleted account', async () => {
      for (const [method, path] of ROUTES) {
        const json = method === 'PUT' ? VALID : undefined;
        await expectAnswer(
          await t.request(path, { method, json }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} without a key`,
        );
        await expectAnswer(
          await t.request(path, { method, json, key: 'not-a-real-key-000' }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} with a bad key`,
        );
      }
      const deleted = await t.request(`/_sim/accounts/${GONE}`, { method: 'POST', json: { deleted: true } });
      assert.equal(deleted.status, 200);
      for (const [method, path] of ROUTES) {
        await expectAnswer(
          await t.request(path, { method, json: method === 'PUT' ? VALID : undefined, key: GONE_KEY }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} with the key of a deleted account`,
        );
      }
    });

    it('checks the key before the body: a bad body without a key is 401', async () => {
      await expectAnswer(
        await t.request('/ext/webhook', {
          method: 'PUT',
          body: '{"url":',
          headers: { 'content-type': 'application/json' },
        }),
        401,
        { error: 'UNAUTHORIZED' },
        'invalid JSON without a key',
      );
      await expectAnswer(
        await t.request('/ext/webhook/deliveries?limit=abc'),
        401,
        { error: 'UNAUTHORIZED' },
        'a bad limit without a key',
      );
    });
  });

  describe('unknown /ext routes', () => {
    it('answer 404 NOT_FOUND before any key check', async () => {
      for (const [method, path] of [
        ['GET', '/ext'],
        ['GET', '/ext/'],
        ['GET', '/ext/nope'],
        ['GET', '/ext/webhooks'],
        ['PATCH', '/ext/webhook'],
        ['POST', '/ext/webhook'],
        ['GET', '/ext/webhook/test'],
        ['GET', '/ext/webhook/rotate-secret'],
        ['GET', '/ext/webhook/deliveries/msg_0/resend'],
        ['POST', '/ext/webhook/deliveries'],
      ] as const) {
        for (const key of [undefined, OWNER_KEY]) {
          await expectExtError(
            await t.request(path, { method, ...(key === undefined ? {} : { key }) }),
            404,
            'NOT_FOUND',
            /no such route/,
            `${method} ${path} ${key === undefined ? 'without' : 'with'} a key`,
          );
        }
      }
    });
  });

  describe('requests refused before routing', () => {
    it("answer in the extension API's shape, with a message", async () => {
      for (const path of ['/ext/webhook/deliveries/%zz/resend', '/ext/%E0%A4%A']) {
        await expectExtError(
          await t.request(path, { method: 'POST', key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /the path cannot be decoded/,
          path,
        );
      }
      await expectExtError(
        await t.request(`/ext/webhook/deliveries?limit=1&pad=${'x'.repeat(17 * 1024)}`, { key: OWNER_KEY }),
        431,
        'BAD_PARAMS',
        /over 16 KiB/,
        'a request line over 16 KiB',
      );
    });
  });
});
