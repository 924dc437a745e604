/**
 * Bad input on the keyed v3 endpoints (the partner endpoint has its own file): each answer is the documented body exactly, never a 500, and
 * nothing happens to the lock. docs/decisions.md ("Everywhere", "v3") fixes the answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpMessage, rawRequest } from '../support/raw-http.ts';
import { LOCK_A, LOCK_B, OWNER_KEY, startServer, type TestServer, waitForTask } from '../support/server.ts';
import {
  expectV3Error,
  FLAGS,
  NOT_AN_OBJECT,
  NOT_JSON_TYPES,
  paddedBody,
  postRaw,
} from './bad-input-helpers.ts';

const LOCK_PATH = `/public/lock/${LOCK_A}`;
const KIB16 = 16 * 1024;

describe('bad input on the v3 API', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  /** A POST with a JSON content type unless `type` says otherwise ('' for none), and the owner's key unless `key` is null. */
  const postLock = (body: string | undefined, type = 'application/json', key: string | null = OWNER_KEY) => {
    const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
    if (key !== null) headers.authorization = key;
    return postRaw(t, LOCK_PATH, body, headers);
  };

  async function expectLockUntouched(): Promise<void> {
    const res = await t.request(LOCK_PATH, { key: OWNER_KEY });
    assert.deepEqual(
      await res.json(),
      { locked: true, battery: 100, responsive: true },
      'LOCK_A did not move',
    );
  }

  describe('POST /public/lock/{device_id}', () => {
    it('answers 400 BAD_PARAMS to a body that is not a JSON object', async () => {
      for (const [what, body] of NOT_AN_OBJECT)
        await expectV3Error(await postLock(body), 400, 'BAD_PARAMS', what);
      await expectLockUntouched();
    });

    it('answers 400 BAD_PARAMS to a wrong type or value, with no coercion', async () => {
      const commands: unknown[] = [
        1,
        0,
        true,
        null,
        ['unlock'],
        { unlock: true },
        'UNLOCK',
        'Unlock',
        ' unlock',
        'unlock ',
        'open',
        '',
      ];
      for (const command of commands) {
        await expectV3Error(
          await postLock(JSON.stringify({ command })),
          400,
          'BAD_PARAMS',
          `command ${JSON.stringify(command)}`,
        );
      }
      await expectLockUntouched();
    });

    it('answers 400 BAD_PARAMS to unknown fields, even beside a valid command', async () => {
      for (const body of [
        { command: 'unlock', extra: 1 },
        { command: 'unlock', device_id: LOCK_A },
        { command: 'unlock', Command: 'unlock' },
      ]) {
        await expectV3Error(await postLock(JSON.stringify(body)), 400, 'BAD_PARAMS', JSON.stringify(body));
      }
      await expectLockUntouched();
    });

    it('answers 400 BAD_PARAMS to a missing command and to an empty body, with or without a content type', async () => {
      await expectV3Error(await postLock('{}'), 400, 'BAD_PARAMS', '{}');
      await expectV3Error(await postLock('{"cmd":"unlock"}'), 400, 'BAD_PARAMS', 'misspelt command');
      await expectV3Error(await postLock(''), 400, 'BAD_PARAMS', 'empty body, JSON content type');
      await expectV3Error(await postLock(undefined, ''), 400, 'BAD_PARAMS', 'no body, no content type');
    });

    it('answers 400 BAD_PARAMS to a content type that is not JSON, even when the text is JSON', async () => {
      for (const type of NOT_JSON_TYPES) {
        await expectV3Error(await postLock('{"command":"unlock"}', type), 400, 'BAD_PARAMS', type);
      }
      await expectV3Error(
        await postLock('command=unlock', 'application/x-www-form-urlencoded'),
        400,
        'BAD_PARAMS',
        'form',
      );
      await expectLockUntouched();
    });

    it('answers 413 BAD_PARAMS over 16 KiB, and reads a body of exactly 16 KiB', async () => {
      await expectV3Error(
        await postLock(paddedBody(KIB16 + 1, { command: 'unlock' })),
        413,
        'BAD_PARAMS',
        '16 KiB + 1',
      );
      await expectV3Error(
        await postLock(paddedBody(200 * 1024, { command: 'unlock' })),
        413,
        'BAD_PARAMS',
        '200 KiB',
      );
      // At the limit the body is read, and refused for its unknown field only.
      await expectV3Error(
        await postLock(paddedBody(KIB16, { command: 'unlock' })),
        400,
        'BAD_PARAMS',
        'exactly 16 KiB',
      );
      await expectLockUntouched();
    });

    it('answers 413 BAD_PARAMS to a chunked body over 16 KiB and to a Content-Length over 16 KiB', async () => {
      const big = paddedBody(KIB16 + 100, { command: 'unlock' });
      const chunked = `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
      const headers = { authorization: OWNER_KEY, 'content-type': 'application/json' };
      for (const [what, message] of [
        [
          'chunked',
          httpMessage(`POST ${LOCK_PATH} HTTP/1.1`, { ...headers, 'transfer-encoding': 'chunked' }, chunked),
        ],
        [
          'Content-Length',
          httpMessage(`POST ${LOCK_PATH} HTTP/1.1`, { ...headers, 'content-length': '20000' }, '{}'),
        ],
      ] as const) {
        const res = await rawRequest(t.url, message);
        assert.deepEqual(
          { status: res.status, body: JSON.parse(res.text) },
          { status: 413, body: { error: 'BAD_PARAMS' } },
          what,
        );
        assert.ok(res.headers['x-request-id'], what);
      }
    });

    it('accepts a JSON content type with a charset parameter, in any case', async () => {
      for (const type of [
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON; Charset="utf-8"',
      ]) {
        const res = await postRaw(t, `/public/lock/${LOCK_B}`, '{"command":"sync"}', {
          authorization: OWNER_KEY,
          'content-type': type,
        });
        assert.equal(res.status, 200, type);
        const { task_id } = (await res.json()) as { task_id: string };
        assert.deepEqual(await waitForTask(t, task_id), { status: 'terminated', successful: true }, type);
      }
    });

    it('answers 400 BAD_PARAMS to a device id that is not a UUID', async () => {
      for (const id of [
        'not-a-uuid',
        '1',
        LOCK_A.replaceAll('-', ''),
        `${LOCK_A}0`,
        `{${LOCK_A}}`,
        `${LOCK_A.slice(0, -1)}g`,
        '%20',
        'é',
        'a'.repeat(10_000),
      ]) {
        const res = await postRaw(t, `/public/lock/${id}`, '{"command":"sync"}', {
          authorization: OWNER_KEY,
          'content-type': 'application/json',
        });
        await expectV3Error(res, 400, 'BAD_PARAMS', `device id ${id.slice(0, 40)}`);
      }
    });

    it('checks the key first: no key or a wrong one answers 401 whatever the body', async () => {
      const bodies: Array<readonly [string, string | undefined, string]> = [
        ...NOT_AN_OBJECT.map(([what, body]) => [what, body, 'application/json'] as const),
        ...NOT_JSON_TYPES.map((type) => [type, 'x', type] as const),
        ['{"command":1}', '{"command":1}', 'application/json'],
        ['unknown field', '{"command":"lock","x":1}', 'application/json'],
        ['empty body', '', 'application/json'],
        ['no body', undefined, ''],
        ['over 16 KiB', paddedBody(KIB16 + 1, { command: 'lock' }), 'application/json'],
      ];
      for (const key of [null, '', 'not-a-key', 'Bearer not-a-key']) {
        for (const [what, body, type] of bodies) {
          const res = await postLock(body, type, key);
          await expectV3Error(res, 401, 'UNAUTHORIZED', `key ${JSON.stringify(key)}, ${what}`);
        }
        const badId = await postRaw(t, '/public/lock/not-a-uuid', '{bad', {
          'content-type': 'application/json',
          ...(key === null ? {} : { authorization: key }),
        });
        await expectV3Error(badId, 401, 'UNAUTHORIZED', `key ${JSON.stringify(key)}, bad id and bad body`);
      }
    });
  });

  describe('GET endpoints', () => {
    it('GET /public/lock/{device_id} answers 400 BAD_PARAMS to a malformed id, 401 first without a key', async () => {
      for (const id of ['not-a-uuid', LOCK_A.replaceAll('-', ''), `${LOCK_A}0`, ' ', 'a'.repeat(10_000)]) {
        await expectV3Error(
          await t.request(`/public/lock/${encodeURIComponent(id)}`, { key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          id.slice(0, 40),
        );
        await expectV3Error(
          await t.request(`/public/lock/${encodeURIComponent(id)}`),
          401,
          'UNAUTHORIZED',
          `no key, ${id.slice(0, 40)}`,
        );
      }
      // The pattern takes any case: an upper-case id is the same lock.
      const upper = await t.request(`/public/lock/${LOCK_A.toUpperCase()}`, { key: OWNER_KEY });
      assert.equal(upper.status, 200);
    });

    it('GET /public/action-result answers 400 BAD_PARAMS to a missing, empty, repeated, too long or unknown task_id', async () => {
      for (const query of [
        '',
        '?task_id=',
        '?task_id=a&task_id=b',
        `?task_id=${'a'.repeat(129)}`,
        `?task_id=${'a'.repeat(10_000)}`,
        '?task_id=nope',
        '?taskid=x',
      ]) {
        await expectV3Error(
          await t.request(`/public/action-result${query}`, { key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          query.slice(0, 40),
        );
        await expectV3Error(
          await t.request(`/public/action-result${query}`),
          401,
          'UNAUTHORIZED',
          `no key, ${query.slice(0, 40)}`,
        );
      }
    });

    it('accepts Content-Type: application/json on a GET, with or without charset, and ignores a body sent with it', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8']) {
        for (const path of ['/public/locks', LOCK_PATH]) {
          const res = await t.request(path, { key: OWNER_KEY, headers: { 'content-type': type } });
          assert.equal(res.status, 200, `${path} ${type}`);
        }
        const task = await t.request('/public/action-result?task_id=nope', {
          key: OWNER_KEY,
          headers: { 'content-type': type },
        });
        await expectV3Error(task, 400, 'BAD_PARAMS', 'unknown task with a JSON content type');
      }
      const withBody = await rawRequest(
        t.url,
        httpMessage(
          'GET /public/locks HTTP/1.1',
          { authorization: OWNER_KEY, 'content-type': 'application/json' },
          '{bad',
        ),
      );
      assert.equal(withBody.status, 200);
      assert.equal((JSON.parse(withBody.text) as unknown[]).length, 2);
    });

    it('GET /public/locks takes a very long query string it does not use', async () => {
      const res = await t.request(`/public/locks?x=${'a'.repeat(10_000)}`, { key: OWNER_KEY });
      assert.equal(res.status, 200);
    });
  });
});
