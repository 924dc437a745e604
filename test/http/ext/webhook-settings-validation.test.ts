/**
 * The extension API's webhook settings refused, black-box: every error GET, PUT and DELETE
 * /ext/webhook (and test, rotate-secret, resend) answer before a webhook is set, every invalid PUT
 * body, and every invalid delivery log limit, each checked whole (status, exact body, JSON content
 * type, X-Request-Id).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { FLAGS } from '../../support/webhooks.ts';
import { paddedBody } from '../bad-input-helpers.ts';
import { expectAnswer, expectExtError } from './helpers.ts';

const VALID = { url: 'http://127.0.0.1:9/hook/{device_id}/{state}' };

describe('/ext/webhook', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(async () => {
    await t.close();
  });

  describe('before any webhook is set', () => {
    it('GET and DELETE answer 404 NOT_FOUND', async () => {
      await expectExtError(
        await t.request('/ext/webhook', { key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'GET',
      );
      await expectExtError(
        await t.request('/ext/webhook', { method: 'DELETE', key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'DELETE',
      );
    });

    it('test, rotate-secret and resend answer 400 BAD_PARAMS', async () => {
      for (const path of [
        '/ext/webhook/test',
        '/ext/webhook/rotate-secret',
        '/ext/webhook/deliveries/msg_0/resend',
      ]) {
        await expectExtError(
          await t.request(path, { method: 'POST', key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /no webhook/,
          path,
        );
      }
    });

    it('the delivery log is empty', async () => {
      await expectAnswer(await t.request('/ext/webhook/deliveries', { key: OWNER_KEY }), 200, [], 'log');
    });
  });

  describe('PUT /ext/webhook refusals', () => {
    const put = (json: unknown) => t.request('/ext/webhook', { method: 'PUT', key: OWNER_KEY, json });
    const base = 'https://hooks.example.com/';

    it('a url over 256 characters (the happy paths show 256 taken)', async () => {
      const url257 = base + 'a'.repeat(257 - base.length);
      assert.equal(url257.length, 257);
      await expectExtError(
        await put({ url: url257 }),
        400,
        'BAD_PARAMS',
        /^url: must be at most 256 characters$/,
        '257',
      );
    });

    it('a url that is not http(s), not a URL, empty, or not a string', async () => {
      for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'javascript:alert(1)']) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /^url: must be http or https$/, url);
      }
      await expectExtError(
        await put({ url: 'hooks.example.com' }),
        400,
        'BAD_PARAMS',
        /^url: is not a URL$/,
        'bare',
      );
      await expectExtError(await put({ url: '' }), 400, 'BAD_PARAMS', /^url: must not be empty$/, 'empty');
      for (const url of [5, null, true, ['https://x.example/'], { href: base }]) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /url/, JSON.stringify(url));
      }
      await expectExtError(await put({}), 400, 'BAD_PARAMS', /url/, 'missing url');
    });

    it('a url with credentials', async () => {
      for (const url of ['https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/']) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /^url: must not carry credentials$/, url);
      }
    });

    it('a method other than GET or POST', async () => {
      for (const method of ['PUT', 'DELETE', 'get', 'post', '', null, 1]) {
        await expectExtError(
          await put({ url: base, method }),
          400,
          'BAD_PARAMS',
          /method/,
          JSON.stringify(method),
        );
      }
    });

    it('retries that is not a boolean', async () => {
      for (const retries of ['true', 'yes', 1, 0, null, {}]) {
        await expectExtError(
          await put({ url: base, retries }),
          400,
          'BAD_PARAMS',
          /retries/,
          JSON.stringify(retries),
        );
      }
    });

    it('an unknown field, named', async () => {
      for (const extra of [{ secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAA' }, { headers: {} }, { URL: base }]) {
        await expectExtError(
          await put({ url: base, ...extra }),
          400,
          'BAD_PARAMS',
          new RegExp(`additional properties|${Object.keys(extra)[0]}`),
          JSON.stringify(extra),
        );
      }
    });

    it('a body that is not an object, not JSON, or of another content type', async () => {
      for (const body of [[], 'str', 1, null, true]) {
        await expectExtError(await put(body), 400, 'BAD_PARAMS', /body/, JSON.stringify(body));
      }
      for (const raw of ['{"url":', '{bad', "{'url':'x'}", '{"url":"x",}']) {
        await expectExtError(
          await t.request('/ext/webhook', {
            method: 'PUT',
            key: OWNER_KEY,
            body: raw,
            headers: { 'content-type': 'application/json' },
          }),
          400,
          'BAD_PARAMS',
          /JSON/,
          raw,
        );
      }
      await expectExtError(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          body: JSON.stringify(VALID),
          headers: { 'content-type': 'text/plain' },
        }),
        400,
        'BAD_PARAMS',
        /body/,
        'text/plain',
      );
      await expectExtError(
        await t.request('/ext/webhook', { method: 'PUT', key: OWNER_KEY }),
        400,
        'BAD_PARAMS',
        /body/,
        'no body',
      );
    });

    it('a body over 16 KiB: 413', async () => {
      await expectExtError(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          body: paddedBody(16 * 1024 + 1, { url: base }),
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'BAD_PARAMS',
        /too large/i,
        '16 KiB + 1',
      );
    });
  });

  describe('GET /ext/webhook/deliveries refusals', () => {
    it('a limit of 0, 501, or not a number', async () => {
      for (const limit of ['0', '501', 'abc', '-1', '1.5', '', '1000', '1e2']) {
        await expectExtError(
          await t.request(`/ext/webhook/deliveries?limit=${limit}`, { key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /limit/,
          `limit=${limit}`,
        );
      }
      for (const limit of ['1', '500', '050']) {
        const res = await t.request(`/ext/webhook/deliveries?limit=${limit}`, { key: OWNER_KEY });
        assert.equal(res.status, 200, `limit=${limit}`);
      }
    });
  });
});
