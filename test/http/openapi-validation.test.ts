/**
 * The OpenAPI document is the same schema that validates: every request the document rules out, generated
 * from the document itself, is refused, and what it allows is accepted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  startServer,
  type TestServer,
  waitForTask,
} from '../support/server.ts';
import { expectSimError, expectV3Error, FLAGS, JSON_UTF8, postRaw } from './bad-input-helpers.ts';
import {
  allowedValues,
  bodySchema,
  fetchDoc,
  type OpenApi,
  parameter,
  type Schema,
} from './openapi-helpers.ts';

/** A v1 error: exactly `{"code": code, "message": message}` with the JSON content type. */
async function expectV1Error(res: Response, status: number, code: number, message: string, what: string) {
  const body = await res.json();
  assert.deepEqual({ status: res.status, body }, { status, body: { code, message } }, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, what);
}

/** Values the schema rules out, each with what is wrong with it: never coerced, never accepted. */
function valuesRuledOut(schema: Schema): Array<readonly [string, unknown]> {
  const closed = allowedValues(schema);
  if (closed) {
    const out: Array<readonly [string, unknown]> = [
      ['a value not in the set', 'NOT_ONE_OF_THEM'],
      ['a number', 1],
    ];
    for (const v of closed) if (typeof v === 'boolean' && !closed.includes(!v)) out.push([`${!v}`, !v]);
    return out;
  }
  const out: Array<readonly [string, unknown]> = [];
  if (schema.type === 'boolean') out.push(['as a string', 'true'], ['as a number', 1], ['null', null]);
  if (schema.type === 'integer' || schema.type === 'number') {
    out.push(['as a string', '1'], ['null', null]);
    if (schema.type === 'integer') out.push(['a fraction', 0.5]);
    if (schema.maximum !== undefined) out.push(['over the maximum', schema.maximum + 1]);
    if (schema.minimum !== undefined) out.push(['under the minimum', schema.minimum - 1]);
  }
  if (schema.type === 'string') {
    out.push(['a number', 1], ['null', null], ['an array', ['x']]);
    if (schema.minLength) out.push(['too short', 'x'.repeat(schema.minLength - 1)]);
    if (schema.maxLength !== undefined) out.push(['too long', 'x'.repeat(schema.maxLength + 1)]);
    if (schema.pattern) {
      const value = 'not-matching';
      assert.ok(!new RegExp(schema.pattern).test(value));
      out.push(['not matching the pattern', value]);
    }
  }
  return out;
}

/** Bodies the documented object schema rules out, each made from an accepted one by one change. */
function bodiesRuledOut(
  schema: Schema,
  valid: Record<string, unknown>,
): Array<readonly [string, string, unknown]> {
  const out: Array<readonly [string, string, unknown]> = [];
  for (const name of schema.required ?? []) {
    const { [name]: _dropped, ...rest } = valid;
    out.push([name, `without ${name}`, rest]);
  }
  if (schema.additionalProperties === false) out.push(['', 'an unknown field', { ...valid, zz_unknown: 1 }]);
  if ((schema.minProperties ?? 0) > 0) out.push(['', 'no field', {}]);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    for (const [what, value] of valuesRuledOut(property))
      out.push([name, `${name} ${what}`, { ...valid, [name]: value }]);
  }
  for (const [what, body] of [
    ['an array', [valid]],
    ['null', null],
    ['a string', 'x'],
  ] as const)
    out.push(['', what, body]);
  assert.ok(out.length > 3, 'the schema rules something out');
  return out;
}

describe('the OpenAPI document, in sandbox mode: its schemas are the ones that validate', () => {
  let t: TestServer;
  let doc: OpenApi;
  before(async () => {
    t = await startServer({ flags: FLAGS });
    doc = await fetchDoc(t);
  });
  after(() => t.close());

  it('the v1 bodies refuse everything the document rules out: 10000, or 10005 for a present type', async () => {
    const valid = { email: OWNER, password: 'owner-password' };
    for (const [, what, body] of bodiesRuledOut(bodySchema(doc, '/v1/accounts/login'), valid)) {
      const res = await postRaw(t, '/v1/accounts/login', JSON.stringify(body));
      await expectV1Error(res, 400, 10000, 'RequiredFieldEmpty', `login ${what}`);
    }
    const login = await postRaw(t, '/v1/accounts/login', JSON.stringify(valid));
    assert.equal(login.status, 200, 'the unchanged login body is accepted');
    const { authorization } = (await login.json()) as { authorization: string };
    for (const [field, what, body] of bodiesRuledOut(bodySchema(doc, '/v1/locks/{lockId}/control'), {
      type: 'lock',
    })) {
      const res = await postRaw(t, `/v1/locks/${LOCK_A}/control`, JSON.stringify(body), {
        'content-type': 'application/json',
        'x-authorization': authorization,
      });
      const present = field === 'type' && (body as { type?: unknown }).type !== undefined;
      if (present) await expectV1Error(res, 400, 10005, 'WrongControlType', `control ${what}`);
      else await expectV1Error(res, 400, 10000, 'RequiredFieldEmpty', `control ${what}`);
    }
  });

  it('accepts every documented command value', async () => {
    const values = allowedValues(bodySchema(doc, '/public/lock/{device_id}').properties?.command ?? {}) ?? [];
    for (const command of values) {
      const res = await postRaw(t, `/public/lock/${LOCK_B}`, JSON.stringify({ command }), {
        'content-type': 'application/json',
        authorization: OWNER_KEY,
      });
      assert.equal(res.status, 200, `${command}`);
      const { task_id } = (await res.json()) as { task_id: string };
      assert.equal((await waitForTask(t, task_id)).status, 'terminated');
    }
  });

  it('POST /public/lock/{device_id} refuses every body the document rules out', async () => {
    for (const [, what, body] of bodiesRuledOut(bodySchema(doc, '/public/lock/{device_id}'), {
      command: 'sync',
    })) {
      const res = await postRaw(t, `/public/lock/${LOCK_A}`, JSON.stringify(body), {
        'content-type': 'application/json',
        authorization: OWNER_KEY,
      });
      await expectV3Error(res, 400, 'BAD_PARAMS', what);
    }
  });

  it('POST /public/partners/automation refuses every body the document rules out (401 when the key is what is wrong)', async () => {
    const valid = { command: 'lock', apikey: OTHER_KEY, device_id: OTHER_LOCK };
    for (const [field, what, body] of bodiesRuledOut(bodySchema(doc, '/public/partners/automation'), valid)) {
      const res = await postRaw(t, '/public/partners/automation', JSON.stringify(body));
      if (field === 'apikey') await expectV3Error(res, 401, 'UNAUTHORIZED', what);
      else await expectV3Error(res, 400, 'BAD_PARAMS', what);
    }
    const accepted = await postRaw(t, '/public/partners/automation', JSON.stringify(valid));
    assert.equal(accepted.status, 200, 'the unchanged body is accepted');
  });

  it('the v3 path and query parameters refuse every value the document rules out', async () => {
    for (const method of ['get', 'post']) {
      const { schema } = parameter(doc, '/public/lock/{device_id}', method, 'path', 'device_id');
      for (const [what, value] of valuesRuledOut(schema).filter(
        ([, v]) => typeof v === 'string' && v !== '',
      )) {
        const res = await t.request(`/public/lock/${encodeURIComponent(String(value))}`, {
          method: method.toUpperCase(),
          key: OWNER_KEY,
          ...(method === 'post' ? { json: { command: 'sync' } } : {}),
        });
        await expectV3Error(res, 400, 'BAD_PARAMS', `${method} device_id ${what}`);
      }
    }
    const { schema } = parameter(doc, '/public/action-result', 'get', 'query', 'task_id');
    for (const [what, value] of valuesRuledOut(schema).filter(([, v]) => typeof v === 'string')) {
      const res = await t.request(`/public/action-result?task_id=${encodeURIComponent(String(value))}`, {
        key: OWNER_KEY,
      });
      await expectV3Error(res, 400, 'BAD_PARAMS', `task_id ${what}`);
    }
  });

  it('the sandbox routes refuse every body and parameter the document rules out', async () => {
    const routes: Array<readonly [string, string, Record<string, unknown>]> = [
      ['/_sim/locks/{device_id}', `/_sim/locks/${LOCK_A}`, { battery: 50 }],
      ['/_sim/clock', '/_sim/clock', { advance_seconds: 0 }],
      ['/_sim/accounts/{email}', `/_sim/accounts/${OTHER}`, { password: 'other-password' }],
      ['/_sim/reset', '/_sim/reset', {}],
    ];
    for (const [documented, path, valid] of routes) {
      for (const [, what, body] of bodiesRuledOut(bodySchema(doc, documented), valid)) {
        await expectSimError(
          await postRaw(t, path, JSON.stringify(body)),
          400,
          'BAD_PARAMS',
          `${path} ${what}`,
        );
      }
      const accepted = await postRaw(t, path, JSON.stringify(valid));
      assert.ok([200, 204].includes(accepted.status), `${path}: the unchanged body is accepted`);
    }
    const to = parameter(doc, '/_sim/mailbox', 'get', 'query', 'to').schema;
    for (const [what, value] of valuesRuledOut(to).filter(([, v]) => typeof v === 'string')) {
      await expectSimError(
        await t.request(`/_sim/mailbox?to=${String(value)}`),
        400,
        'BAD_PARAMS',
        `to ${what}`,
      );
    }
  });
});
