/**
 * Bad input on every sandbox route (docs/sandbox.md): each answer is the sandbox's error body exactly
 * (`{"error", "message"}`), never a 500, and the simulated world does not change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCK_A, OWNER, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import {
  expectSimError,
  FLAGS,
  NOT_AN_OBJECT,
  NOT_JSON_TYPES,
  paddedBody,
  postRaw,
} from './bad-input-helpers.ts';

const SIM_LOCK = `/_sim/locks/${LOCK_A}`;
const SIM_ACCOUNT = `/_sim/accounts/${OWNER}`;
const KIB16 = 16 * 1024;

/** Each POST route with a body it accepts, so that every refusal below is for the one thing changed. */
const POST_ROUTES = [
  { path: SIM_LOCK, valid: { battery: 42 } },
  { path: '/_sim/locks', valid: { owner: OWNER, nickname: 'Added' } },
  { path: '/_sim/clock', valid: { advance_seconds: 1 } },
  { path: SIM_ACCOUNT, valid: { password: 'owner-password' } },
  { path: '/_sim/reset', valid: {} },
] as const;

describe('bad input on the sandbox routes', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  const SEEDED_LOCK_A = {
    device_id: LOCK_A,
    locked: true,
    battery: 100,
    responsive: true,
    integration: true,
    access_point: true,
    app_open: false,
    latency_ms: 0,
    fail_next: null,
    jammed: false,
    door: 'closed',
    firmware: 'lockcloud-sim-lock/2',
    auto_lock_seconds: 0,
    protocol_version: 2,
  };

  async function expectWorldUntouched(): Promise<void> {
    const res = await postRaw(t, SIM_LOCK, '{}');
    assert.deepEqual(await res.json(), SEEDED_LOCK_A, 'the simulated lock did not change');
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200, 'the account is there');
  }

  describe('every POST route', () => {
    for (const { path, valid } of POST_ROUTES) {
      it(`${path} answers 400 BAD_PARAMS to a body that is not a JSON object, empty, or not JSON`, async () => {
        for (const [what, body] of NOT_AN_OBJECT)
          await expectSimError(await postRaw(t, path, body), 400, 'BAD_PARAMS', what);
        await expectSimError(await postRaw(t, path, ''), 400, 'BAD_PARAMS', 'empty body, JSON content type');
        for (const type of NOT_JSON_TYPES) {
          await expectSimError(
            await postRaw(t, path, JSON.stringify(valid), { 'content-type': type }),
            400,
            'BAD_PARAMS',
            type,
          );
        }
        await expectWorldUntouched();
      });

      it(`${path} answers 400 BAD_PARAMS to an unknown field and 413 BAD_PARAMS over 16 KiB`, async () => {
        for (const body of [
          { ...valid, extra: 1 },
          { ...valid, Battery: 1 },
        ]) {
          await expectSimError(
            await postRaw(t, path, JSON.stringify(body)),
            400,
            'BAD_PARAMS',
            JSON.stringify(body),
          );
        }
        await expectSimError(
          await postRaw(t, path, paddedBody(KIB16 + 1, valid)),
          413,
          'BAD_PARAMS',
          '16 KiB + 1',
        );
        await expectWorldUntouched();
      });
    }

    it('all accept a JSON content type with a charset parameter', async () => {
      for (const { path, valid } of POST_ROUTES) {
        const res = await postRaw(t, path, JSON.stringify(valid), {
          'content-type': 'application/json; charset=utf-8',
        });
        assert.ok([200, 201, 204].includes(res.status), `${path}: ${res.status} ${await res.text()}`);
      }
      await postRaw(t, '/_sim/reset', undefined, {});
    });
  });

  describe('POST /_sim/locks/{device_id}', () => {
    it('answers 400 BAD_PARAMS to wrong types, with no coercion, and to values out of range', async () => {
      const bodies = [
        { battery: '50' },
        { battery: 50.5 },
        { battery: -1 },
        { battery: 101 },
        { battery: null },
        { locked: 'true' },
        { locked: 1 },
        { responsive: 'false' },
        { integration: 0 },
        { access_point: 'yes' },
        { app_open: [] },
        { latency_ms: '0' },
        { latency_ms: -1 },
        { latency_ms: 600_001 },
        { fail_next: 'NOPE' },
        { fail_next: 'jammed' },
        { fail_next: 1 },
        { locked: false, battery: '50' },
      ];
      for (const body of bodies) {
        await expectSimError(
          await postRaw(t, SIM_LOCK, JSON.stringify(body)),
          400,
          'BAD_PARAMS',
          JSON.stringify(body),
        );
      }
      await expectWorldUntouched();
    });

    it('answers 400 BAD_PARAMS to no body at all (a body is an object of changes, {} for none)', async () => {
      await expectSimError(await postRaw(t, SIM_LOCK, undefined, {}), 400, 'BAD_PARAMS', 'no body');
    });

    it('answers 400 BAD_PARAMS to a device id that is not a UUID, 404 NOT_FOUND to an unknown one', async () => {
      for (const id of ['not-a-uuid', LOCK_A.replaceAll('-', ''), `${LOCK_A}0`, 'a'.repeat(10_000)]) {
        await expectSimError(await postRaw(t, `/_sim/locks/${id}`, '{}'), 400, 'BAD_PARAMS', id.slice(0, 40));
      }
      const unknown = await postRaw(t, '/_sim/locks/00000000-0000-4000-8000-000000000999', '{"battery":1}');
      await expectSimError(unknown, 404, 'NOT_FOUND', 'unknown lock');
    });
  });

  describe('/_sim/clock', () => {
    it('POST answers 400 BAD_PARAMS to a missing, mistyped or out-of-range advance_seconds', async () => {
      const before = ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
      for (const body of [
        {},
        { advance_seconds: '5' },
        { advance_seconds: null },
        { advance_seconds: 1.5 },
        { advance_seconds: -1 },
        { advance_seconds: 10 * 365 * 24 * 3600 + 1 },
        { advance: 5 },
      ]) {
        await expectSimError(
          await postRaw(t, '/_sim/clock', JSON.stringify(body)),
          400,
          'BAD_PARAMS',
          JSON.stringify(body),
        );
      }
      await expectSimError(await postRaw(t, '/_sim/clock', undefined, {}), 400, 'BAD_PARAMS', 'no body');
      const now = ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
      assert.ok(now - before < 60_000, 'the clock was not moved');
    });

    it('GET accepts Content-Type: application/json', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8']) {
        const res = await t.request('/_sim/clock', { headers: { 'content-type': type } });
        assert.equal(res.status, 200, type);
      }
    });
  });

  describe('POST /_sim/accounts/{email}', () => {
    it('answers 400 BAD_PARAMS to wrong types, no change at all, or deleted other than true', async () => {
      for (const body of [
        {},
        { password: 1 },
        { password: '' },
        { password: null },
        { deleted: false },
        { deleted: 'true' },
        { deleted: 1 },
      ]) {
        await expectSimError(
          await postRaw(t, SIM_ACCOUNT, JSON.stringify(body)),
          400,
          'BAD_PARAMS',
          JSON.stringify(body),
        );
      }
      await expectSimError(await postRaw(t, SIM_ACCOUNT, undefined, {}), 400, 'BAD_PARAMS', 'no body');
      await expectWorldUntouched();
    });

    it('answers 400 BAD_PARAMS to an e-mail too short or too long, 404 NOT_FOUND to one without an account', async () => {
      for (const email of ['ab', `${'a'.repeat(250)}@example.com`]) {
        const res = await postRaw(t, `/_sim/accounts/${email}`, '{"deleted":true}');
        await expectSimError(res, 400, 'BAD_PARAMS', `e-mail of ${email.length} characters`);
      }
      for (const email of ['nobody@example.com', `${'a'.repeat(200)}@example.com`]) {
        const res = await postRaw(t, `/_sim/accounts/${email}`, '{"deleted":true}');
        await expectSimError(res, 404, 'NOT_FOUND', `unknown e-mail of ${email.length} characters`);
      }
      await expectWorldUntouched();
    });
  });

  describe('POST /_sim/reset', () => {
    it('takes no body, or an empty object', async () => {
      for (const [what, body, headers] of [
        ['no body', undefined, {}],
        ['{}', '{}', { 'content-type': 'application/json' }],
        ['{} with charset', '{}', { 'content-type': 'application/json; charset=utf-8' }],
      ] as const) {
        const res = await postRaw(t, '/_sim/reset', body, headers);
        assert.equal(res.status, 204, what);
        assert.equal(await res.text(), '', what);
        assert.ok(res.headers.get('x-request-id'), what);
      }
    });

    it('does not reset on a refused body', async () => {
      const moved = await postRaw(t, SIM_LOCK, '{"battery":7}');
      assert.equal(moved.status, 200);
      await expectSimError(
        await postRaw(t, '/_sim/reset', '{"everything":true}'),
        400,
        'BAD_PARAMS',
        'unknown field',
      );
      await expectSimError(await postRaw(t, '/_sim/reset', '[]'), 400, 'BAD_PARAMS', 'array');
      assert.equal(((await (await postRaw(t, SIM_LOCK, '{}')).json()) as { battery: number }).battery, 7);
      assert.equal((await postRaw(t, '/_sim/reset', undefined, {})).status, 204);
      await expectWorldUntouched();
    });
  });

  describe('GET /_sim/mailbox', () => {
    it('answers 400 BAD_PARAMS to a missing, short, long or repeated `to`', async () => {
      for (const query of [
        '',
        '?to=',
        '?to=a',
        `?to=${'a'.repeat(255)}`,
        `?to=${OWNER}&to=${OWNER}`,
        '?To=x@example.com',
      ]) {
        await expectSimError(await t.request(`/_sim/mailbox${query}`), 400, 'BAD_PARAMS', query.slice(0, 40));
      }
    });

    it('accepts Content-Type: application/json on the GET', async () => {
      const res = await t.request(`/_sim/mailbox?to=${OWNER}`, {
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(await res.json()));
    });
  });
});
