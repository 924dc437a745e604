/**
 * Bad input on POST /public/partners/automation, which takes its key in the body: a body that is
 * not a JSON object has no key to check (400); then apikey (401); then the other fields (400).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LOCK_A,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startServer,
  type TestServer,
  waitForTask,
} from '../support/server.ts';
import {
  expectV3Error,
  FLAGS,
  NOT_AN_OBJECT,
  NOT_JSON_TYPES,
  paddedBody,
  postRaw,
} from './bad-input-helpers.ts';

const PARTNER_PATH = '/public/partners/automation';
const KIB16 = 16 * 1024;

describe('bad input on the partner endpoint', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  async function expectLockUntouched(): Promise<void> {
    const res = await t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY });
    assert.deepEqual(
      await res.json(),
      { locked: true, battery: 100, responsive: true },
      'LOCK_A did not move',
    );
  }

  describe('POST /public/partners/automation', () => {
    const partner = (
      body: string | undefined,
      headers: Record<string, string> = { 'content-type': 'application/json' },
    ) => postRaw(t, PARTNER_PATH, body, headers);
    const valid = { command: 'unlock', apikey: OWNER_KEY, device_id: LOCK_A };

    it('answers 400 BAD_PARAMS to a body that is not a JSON object: there is no key to check', async () => {
      for (const [what, body] of NOT_AN_OBJECT)
        await expectV3Error(await partner(body), 400, 'BAD_PARAMS', what);
      await expectV3Error(await partner(''), 400, 'BAD_PARAMS', 'empty body, JSON content type');
      await expectV3Error(await partner(undefined, {}), 400, 'BAD_PARAMS', 'no body, no content type');
      for (const type of NOT_JSON_TYPES) {
        await expectV3Error(
          await partner(JSON.stringify(valid), { 'content-type': type }),
          400,
          'BAD_PARAMS',
          type,
        );
      }
      const form = new URLSearchParams(valid).toString();
      await expectV3Error(
        await partner(form, { 'content-type': 'application/x-www-form-urlencoded' }),
        400,
        'BAD_PARAMS',
        'form',
      );
      await expectLockUntouched();
    });

    it('checks apikey first: missing, of the wrong type, or unknown answers 401 whatever the other fields', async () => {
      const others = [
        {},
        { command: 'unlock', device_id: LOCK_A },
        { command: 1, device_id: 'nope', extra: true },
      ];
      for (const apikey of [
        undefined,
        1,
        null,
        true,
        [OWNER_KEY],
        { key: OWNER_KEY },
        '',
        'not-a-key',
        `Bearer ${OWNER_KEY}`,
      ]) {
        for (const rest of others) {
          const res = await partner(JSON.stringify({ ...rest, apikey }));
          await expectV3Error(
            res,
            401,
            'UNAUTHORIZED',
            `apikey ${JSON.stringify(apikey)} with ${JSON.stringify(rest)}`,
          );
        }
      }
      // The Authorization header is not how this endpoint takes the key.
      const header = await partner(JSON.stringify({ command: 'unlock', device_id: LOCK_A }), {
        'content-type': 'application/json',
        authorization: OWNER_KEY,
      });
      await expectV3Error(header, 401, 'UNAUTHORIZED', 'key in the header only');
      await expectLockUntouched();
    });

    it('answers 400 BAD_PARAMS, with a valid key, to wrong types, missing or unknown fields, no coercion', async () => {
      const bodies: unknown[] = [
        { apikey: OWNER_KEY },
        { apikey: OWNER_KEY, command: 'unlock' },
        { apikey: OWNER_KEY, device_id: LOCK_A },
        { ...valid, command: 'sync' },
        { ...valid, command: 1 },
        { ...valid, command: 'UNLOCK' },
        { ...valid, command: null },
        { ...valid, device_id: 1 },
        { ...valid, device_id: 'not-a-uuid' },
        { ...valid, device_id: [LOCK_A] },
        { ...valid, extra: 1 },
        { ...valid, Command: 'unlock' },
      ];
      for (const body of bodies)
        await expectV3Error(await partner(JSON.stringify(body)), 400, 'BAD_PARAMS', JSON.stringify(body));
      await expectLockUntouched();
    });

    it('answers 413 BAD_PARAMS over 16 KiB', async () => {
      await expectV3Error(await partner(paddedBody(KIB16 + 1, valid)), 413, 'BAD_PARAMS', '16 KiB + 1');
      await expectLockUntouched();
    });

    it('accepts a JSON content type with a charset parameter', async () => {
      const res = await partner(
        JSON.stringify({
          command: 'lock',
          apikey: OTHER_KEY,
          device_id: OTHER_LOCK,
        }),
        {
          'content-type': 'application/json; charset=utf-8',
        },
      );
      assert.equal(res.status, 200);
      const { task_id } = (await res.json()) as { task_id: string };
      assert.deepEqual(await waitForTask(t, task_id, OTHER_KEY), { status: 'terminated', successful: true });
    });
  });
});
