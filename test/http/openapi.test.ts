/**
 * GET /openapi.json and /docs: the OpenAPI 3.1 document lists every v3 and v1 operation (and the sandbox's,
 * in sandbox mode only) with its parameters and request bodies, and it is the same schema that
 * validates: every request the document rules out, generated from the document itself, is refused.
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

interface Schema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: Schema;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, unknown[]>>;
}
interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in: string; name: string; description?: string }>;
  };
}

const V3_OPERATIONS: Record<string, string[]> = {
  '/public/locks': ['get'],
  '/public/lock/{device_id}': ['get', 'post'],
  '/public/action-result': ['get'],
  '/public/partners/automation': ['post'],
};
const SIM_OPERATIONS: Record<string, string[]> = {
  '/_sim/locks/{device_id}': ['post'],
  '/_sim/clock': ['get', 'post'],
  '/_sim/accounts/{email}': ['post'],
  '/_sim/reset': ['post'],
  '/_sim/mailbox': ['get'],
};
const KEYED = ['/public/locks', '/public/lock/{device_id}', '/public/action-result'];
const V1_OPERATIONS: Record<string, string[]> = {
  '/v1/accounts/login': ['post'],
  '/v1/locks': ['get'],
  '/v1/locks/{lockId}': ['get'],
  '/v1/locks/{lockId}/control': ['post'],
};
const V1_TOKEN = ['/v1/locks', '/v1/locks/{lockId}', '/v1/locks/{lockId}/control'];

/** A v1 error: exactly `{"code": code, "message": message}` with the JSON content type. */
async function expectV1Error(res: Response, status: number, code: number, message: string, what: string) {
  const body = await res.json();
  assert.deepEqual({ status: res.status, body }, { status, body: { code, message } }, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, what);
}

async function fetchDoc(t: TestServer): Promise<OpenApi> {
  const res = await t.request('/openapi.json');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), JSON_UTF8);
  return (await res.json()) as OpenApi;
}

function operation(doc: OpenApi, path: string, method: string): Operation {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
  return op;
}

function bodySchema(doc: OpenApi, path: string, method = 'post'): Schema {
  const schema = operation(doc, path, method).requestBody?.content['application/json']?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} documents a JSON request body`);
  return schema;
}

function parameter(doc: OpenApi, path: string, method: string, where: string, name: string): Parameter {
  const found = operation(doc, path, method).parameters?.find((p) => p.in === where && p.name === name);
  assert.ok(found, `${method.toUpperCase()} ${path} documents the ${where} parameter ${name}`);
  return found;
}

/** The values a schema allows when it is a closed set (enum, const, or a union of them); else undefined. */
function allowedValues(schema: Schema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  if ('const' in schema) return [schema.const];
  if (schema.type === 'null') return [null];
  const union = schema.anyOf ?? schema.oneOf;
  if (!union) return undefined;
  const parts = union.map(allowedValues);
  return parts.every((p) => p !== undefined) ? parts.flat() : undefined;
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

describe('the OpenAPI document, in sandbox mode', () => {
  let t: TestServer;
  let doc: OpenApi;
  before(async () => {
    t = await startServer({ flags: FLAGS });
    doc = await fetchDoc(t);
  });
  after(() => t.close());

  it('is OpenAPI 3.1 and documents every v3, v1 and sandbox operation, nothing else', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.title, 'lockcloud');
    assert.deepEqual(
      Object.keys(doc.paths).sort(),
      Object.keys({ ...V3_OPERATIONS, ...V1_OPERATIONS, ...SIM_OPERATIONS }).sort(),
    );
    for (const [path, methods] of Object.entries({ ...V3_OPERATIONS, ...V1_OPERATIONS, ...SIM_OPERATIONS })) {
      assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
    }
    for (const path of Object.keys(doc.paths))
      assert.match(path, /^\/(public|_sim|v1)\//, `${path} is an API path`);
  });

  it('documents the path and query parameters with their schemas', () => {
    for (const method of ['get', 'post']) {
      const id = parameter(doc, '/public/lock/{device_id}', method, 'path', 'device_id');
      assert.equal(id.required, true);
      assert.ok(new RegExp(id.schema.pattern ?? '^$').test(LOCK_A), 'the pattern takes a UUID');
    }
    assert.equal(parameter(doc, '/public/action-result', 'get', 'query', 'task_id').required, true);
    assert.equal(parameter(doc, '/_sim/locks/{device_id}', 'post', 'path', 'device_id').required, true);
    assert.equal(parameter(doc, '/_sim/accounts/{email}', 'post', 'path', 'email').required, true);
    assert.equal(parameter(doc, '/_sim/mailbox', 'get', 'query', 'to').required, true);
  });

  it('documents the request bodies: the command enum, required fields, no unknown fields', () => {
    const command = bodySchema(doc, '/public/lock/{device_id}');
    assert.deepEqual(command.required, ['command']);
    assert.deepEqual(allowedValues(command.properties?.command ?? {})?.sort(), ['lock', 'sync', 'unlock']);
    assert.equal(command.additionalProperties, false);

    const partner = bodySchema(doc, '/public/partners/automation');
    assert.deepEqual([...(partner.required ?? [])].sort(), ['apikey', 'command', 'device_id']);
    assert.deepEqual(allowedValues(partner.properties?.command ?? {})?.sort(), ['lock', 'unlock']);
    assert.equal(partner.properties?.apikey?.type, 'string');
    assert.equal(partner.additionalProperties, false);

    const sim = bodySchema(doc, '/_sim/locks/{device_id}');
    assert.deepEqual(Object.keys(sim.properties ?? {}).sort(), [
      'access_point',
      'app_open',
      'battery',
      'fail_next',
      'integration',
      'latency_ms',
      'locked',
      'responsive',
    ]);
    assert.deepEqual(allowedValues(sim.properties?.fail_next ?? {})?.sort(), [
      'DEVICE_UNREACHABLE',
      'JAMMED',
      'TIMEOUT',
      null,
    ]);
    assert.equal(bodySchema(doc, '/_sim/clock').properties?.advance_seconds?.type, 'integer');
    assert.deepEqual(Object.keys(bodySchema(doc, '/_sim/accounts/{email}').properties ?? {}).sort(), [
      'deleted',
      'password',
    ]);
    assert.deepEqual(bodySchema(doc, '/_sim/reset').properties, {});
  });

  it('documents the API key on the keyed v3 operations only', () => {
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: doc.components.securitySchemes.apiKey?.description,
    });
    for (const [path, methods] of Object.entries({ ...V3_OPERATIONS, ...SIM_OPERATIONS })) {
      for (const method of methods) {
        const expected = KEYED.includes(path) ? [{ apiKey: [] }] : undefined;
        assert.deepEqual(operation(doc, path, method).security, expected, `${method} ${path}`);
      }
    }
  });

  it('documents the answers: a 200 schema and the v3 error body', () => {
    assert.equal(
      operation(doc, '/public/locks', 'get').responses['200']?.content?.['application/json']?.schema.type,
      'array',
    );
    for (const [path, methods] of Object.entries(V3_OPERATIONS)) {
      for (const method of methods) {
        const { responses } = operation(doc, path, method);
        assert.ok(responses['200'], `${method} ${path} 200`);
        const unauthorized = responses['401']?.content?.['application/json']?.schema;
        assert.deepEqual(unauthorized?.required, ['error'], `${method} ${path} 401`);
      }
    }
  });

  it('documents the v1 operations: the login token, the lock id, the bodies and the answers', () => {
    assert.deepEqual(doc.components.securitySchemes.loginToken, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Authorization',
      description: doc.components.securitySchemes.loginToken?.description,
    });
    for (const [path, methods] of Object.entries(V1_OPERATIONS)) {
      for (const method of methods) {
        const op = operation(doc, path, method);
        const expected = V1_TOKEN.includes(path) ? [{ loginToken: [] }] : undefined;
        assert.deepEqual(op.security, expected, `${method} ${path} security`);
        for (const [status, response] of Object.entries(op.responses)) {
          if (/^2/.test(status)) continue;
          const schema = response.content?.['application/json']?.schema;
          assert.deepEqual(schema?.required, ['code', 'message'], `${method} ${path} ${status}`);
          assert.equal(schema?.properties?.code?.type, 'integer', `${method} ${path} ${status}`);
        }
      }
    }
    for (const [path, method] of [
      ['/v1/locks/{lockId}', 'get'],
      ['/v1/locks/{lockId}/control', 'post'],
    ] as const) {
      assert.equal(parameter(doc, path, method, 'path', 'lockId').required, true, `${method} ${path}`);
    }

    const login = bodySchema(doc, '/v1/accounts/login');
    assert.deepEqual([...(login.required ?? [])].sort(), ['email', 'password']);
    assert.equal(login.properties?.email?.type, 'string');
    assert.equal(login.properties?.password?.type, 'string');
    const loginOk = operation(doc, '/v1/accounts/login', 'post').responses['200']?.content?.[
      'application/json'
    ];
    assert.deepEqual(loginOk?.schema.required, ['authorization']);
    assert.ok(operation(doc, '/v1/accounts/login', 'post').responses['429'], 'login documents 429');

    const control = bodySchema(doc, '/v1/locks/{lockId}/control');
    assert.deepEqual(control.required, ['type']);
    assert.deepEqual(allowedValues(control.properties?.type ?? {})?.sort(), ['lock', 'unlock']);
    assert.ok(operation(doc, '/v1/locks/{lockId}/control', 'post').responses['204'], 'control documents 204');

    const list = operation(doc, '/v1/locks', 'get').responses['200']?.content?.['application/json']?.schema;
    assert.deepEqual(list?.required, ['locks']);
    assert.equal(list?.properties?.locks?.type, 'array');
    const fields = ['api_enabled', 'battery', 'device_id', 'is_unlocked', 'nickname'];
    assert.deepEqual([...(list?.properties?.locks?.items?.required ?? [])].sort(), fields);
    const one = operation(doc, '/v1/locks/{lockId}', 'get').responses['200']?.content?.['application/json']
      ?.schema;
    assert.deepEqual(
      Object.keys(one?.properties ?? {}).sort(),
      fields.filter((f) => f !== 'device_id'),
    );
  });

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

  it('GET /docs/ serves the browsable UI, over the same document', async () => {
    const res = await t.request('/docs/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    assert.match(html, /<html/i);
    assert.match(html, /swagger-ui/i);
    const json = await t.request('/docs/json');
    assert.deepEqual(((await json.json()) as OpenApi).paths, doc.paths);
  });
});

describe('the OpenAPI document, with --production', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: [...FLAGS, '--production'] });
  });
  after(() => t.close());

  it('documents every v3 and v1 operation and no /_sim path', async () => {
    const doc = await fetchDoc(t);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    for (const [path, methods] of Object.entries({ ...V3_OPERATIONS, ...V1_OPERATIONS })) {
      assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
    }
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/_sim')),
      [],
    );
    assert.deepEqual(bodySchema(doc, '/public/lock/{device_id}').required, ['command']);
  });

  it('still serves the UI', async () => {
    const res = await t.request('/docs/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  });
});
