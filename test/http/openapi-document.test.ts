/**
 * GET /openapi.json and /docs: the OpenAPI 3.1 document lists every v3, v1 and extension (/ext)
 * operation (and the sandbox's, in sandbox mode only) with its parameters, request bodies, security
 * and answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCK_A, startServer, type TestServer } from '../support/server.ts';
import { FLAGS } from './bad-input-helpers.ts';
import {
  allowedValues,
  bodySchema,
  fetchDoc,
  type OpenApi,
  operation,
  parameter,
} from './openapi-helpers.ts';

const V3_OPERATIONS: Record<string, string[]> = {
  '/public/locks': ['get'],
  '/public/lock/{device_id}': ['get', 'post'],
  '/public/action-result': ['get'],
  '/public/partners/automation': ['post'],
};
const SIM_OPERATIONS: Record<string, string[]> = {
  '/_sim/locks': ['post'],
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
/**
 * The extension API: the webhook settings, its secret, its delivery log, the event log, the locks'
 * health and the API keys; all keyed, in both modes.
 */
const EXT_OPERATIONS: Record<string, string[]> = {
  '/ext/events': ['get'],
  '/ext/events/stream': ['get'],
  '/ext/webhook': ['delete', 'get', 'put'],
  '/ext/webhook/rotate-secret': ['post'],
  '/ext/webhook/test': ['post'],
  '/ext/webhook/deliveries': ['get'],
  '/ext/webhook/deliveries/{id}/resend': ['post'],
  '/ext/webhook-endpoints': ['get', 'post'],
  '/ext/webhook-endpoints/{id}': ['delete', 'get', 'patch'],
  '/ext/webhook-endpoints/{id}/rotate-secret': ['post'],
  '/ext/webhook-endpoints/{id}/deliveries': ['get'],
  '/ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend': ['post'],
  '/ext/locks': ['get'],
  '/ext/locks/{device_id}': ['get', 'patch'],
  '/ext/keys': ['get', 'post'],
  '/ext/keys/{id}': ['delete'],
  '/ext/locks/{device_id}/grants': ['get', 'post'],
  '/ext/locks/{device_id}/grants/{grant_id}': ['delete', 'patch'],
  '/ext/invitations': ['get'],
  '/ext/invitations/{grant_id}/accept': ['post'],
  '/ext/invitations/{grant_id}/decline': ['post'],
  '/ext/grants': ['get'],
  '/ext/locks/{device_id}/commands': ['post'],
  '/ext/tasks/{task_id}': ['get'],
};

describe('the OpenAPI document, in sandbox mode', () => {
  let t: TestServer;
  let doc: OpenApi;
  before(async () => {
    t = await startServer({ flags: FLAGS });
    doc = await fetchDoc(t);
  });
  after(() => t.close());

  it('is OpenAPI 3.1 and documents every v3, v1, extension and sandbox operation, nothing else', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.title, 'lockcloud');
    const all = { ...V3_OPERATIONS, ...V1_OPERATIONS, ...EXT_OPERATIONS, ...SIM_OPERATIONS };
    assert.deepEqual(Object.keys(doc.paths).sort(), Object.keys(all).sort());
    for (const [path, methods] of Object.entries(all)) {
      assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
    }
    for (const path of Object.keys(doc.paths))
      assert.match(path, /^\/(public|_sim|v1|ext)\//, `${path} is an API path`);
  });

  it('documents the /ext webhook operations: the API key, the PUT body, the parameters, the answers', () => {
    for (const [path, methods] of Object.entries(EXT_OPERATIONS)) {
      for (const method of methods) {
        const op = operation(doc, path, method);
        assert.deepEqual(op.security, [{ apiKey: [] }], `${method} ${path} security`);
        const success = Object.keys(op.responses).filter((s) => /^2/.test(s));
        assert.equal(success.length, 1, `${method} ${path} documents one success`);
        const unauthorized = op.responses['401']?.content?.['application/json']?.schema;
        assert.deepEqual(unauthorized?.required, ['error'], `${method} ${path} 401`);
        assert.deepEqual(Object.keys(unauthorized?.properties ?? {}).sort(), ['error', 'message']);
      }
    }
    const put = bodySchema(doc, '/ext/webhook', 'put');
    assert.deepEqual(put.required, ['url']);
    assert.deepEqual(Object.keys(put.properties ?? {}).sort(), ['method', 'retries', 'url']);
    assert.equal(put.properties?.url?.type, 'string');
    assert.deepEqual(allowedValues(put.properties?.method ?? {})?.sort(), ['GET', 'POST']);
    assert.equal(put.properties?.retries?.type, 'boolean');
    assert.equal(put.additionalProperties, false);

    const view = operation(doc, '/ext/webhook', 'get').responses['200']?.content?.['application/json']
      ?.schema;
    assert.deepEqual(view?.required, ['url', 'method', 'retries'], 'the secret is not a required field');
    for (const [path, method] of [
      ['/ext/webhook', 'get'],
      ['/ext/webhook', 'delete'],
      ['/ext/webhook/deliveries/{id}/resend', 'post'],
    ] as const) {
      assert.ok(operation(doc, path, method).responses['404'], `${method} ${path} documents 404`);
    }
    assert.ok(operation(doc, '/ext/webhook', 'delete').responses['204'], 'DELETE documents 204');
    for (const path of ['/ext/webhook/test', '/ext/webhook/deliveries/{id}/resend']) {
      const accepted = operation(doc, path, 'post').responses['202']?.content?.['application/json']?.schema;
      assert.deepEqual(accepted?.required, ['delivery_id'], path);
    }
    const rotated = operation(doc, '/ext/webhook/rotate-secret', 'post').responses['200']?.content?.[
      'application/json'
    ]?.schema;
    assert.deepEqual(rotated?.required, ['secret']);

    assert.equal(parameter(doc, '/ext/webhook/deliveries/{id}/resend', 'post', 'path', 'id').required, true);
    const limit = parameter(doc, '/ext/webhook/deliveries', 'get', 'query', 'limit');
    assert.notEqual(limit.required, true);
    const log = operation(doc, '/ext/webhook/deliveries', 'get').responses['200']?.content?.[
      'application/json'
    ]?.schema;
    assert.equal(log?.type, 'array');
    assert.deepEqual([...(log?.items?.required ?? [])].sort(), [
      'attempts',
      'created_at',
      'device_id',
      'error',
      'event',
      'id',
      'last_attempt_at',
      'latency_ms',
      'method',
      'next_attempt_at',
      'response_status',
      'status',
      'url',
    ]);
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
      'door',
      'fail_next',
      'firmware',
      'integration',
      'jammed',
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
        // Every keyed v3 operation's refusals: no key, a blocked address or a missing scope, a rate limit.
        for (const status of ['401', '403', '429']) {
          const refusal = responses[status]?.content?.['application/json']?.schema;
          assert.deepEqual(refusal?.required, ['error'], `${method} ${path} ${status}`);
        }
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

  it('documents every v3, v1 and extension operation and no /_sim path', async () => {
    const doc = await fetchDoc(t);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    for (const [path, methods] of Object.entries({ ...V3_OPERATIONS, ...V1_OPERATIONS, ...EXT_OPERATIONS })) {
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
