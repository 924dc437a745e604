/**
 * Drift: the SDK against the OpenAPI document a live server serves and against docs/errors.md.
 * - its types (through the runtime field lists of test/sdk/fields.ts, which the compiler ties to the
 *   types) against the documented request and response schemas, and its unions against the enums;
 * - its clients against the routes: every route of /public, /v1, /ext and /_sim is reached by an SDK
 *   method that succeeds on it, and every public method of every client is called here, so a route
 *   added without a method, or a method added without its route (or without a call here), fails;
 * - its error classes against the error tables of every surface it speaks.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { V1_ERROR_CLASSES } from '../../sdk/src/errors-v1.ts';
import { V3_ERROR_CLASSES } from '../../sdk/src/errors-v3.ts';
import {
  type BatteryState,
  COMMANDS,
  type DoorState,
  LockcloudClient,
  LockcloudSandboxClient,
  LockcloudV1Client,
  type LockRole,
  PARTNER_COMMANDS,
  type SandboxFailure,
  TASK_FAILURE_REASONS,
  V1_CONTROL_TYPES,
  type WebhookMethod,
} from '../../sdk/src/index.ts';
import { eventually } from '../support/eventually.ts';
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
} from '../support/server.ts';
import { ACCESS_POINT_FIELDS, REQUEST_FIELDS, RESPONSE_FIELDS, valuesOf } from './fields.ts';
import { type Receiver, startReceiver } from './helpers.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const SURFACES = ['/public/', '/v1/', '/ext/', '/_sim/'];
/** The routes that answer no body on success (204). */
const NO_BODY = [
  'POST /v1/locks/{lockId}/control',
  'DELETE /ext/webhook',
  'DELETE /ext/webhook-endpoints/{id}',
  'DELETE /ext/keys/{id}',
  'DELETE /ext/locks/{device_id}/grants/{grant_id}',
  'POST /_sim/reset',
];
/** Answers a text/event-stream, not JSON (docs/events.md, "The live stream"). */
const STREAMS = ['GET /ext/events/stream'];

function operation(doc: Doc, key: string): Operation {
  const [method = '', path = ''] = key.replace(/\[\]$/, '').split(' ');
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${key} is not in /openapi.json`);
  return op;
}

/** The JSON schema of the operation's success answer (200, or 202 for /ext's accepted messages). */
function successSchema(op: Operation): Schema | undefined {
  const [, success] = Object.entries(op.responses).find(([s, r]) => s.startsWith('2') && r.content) ?? [];
  return success?.content?.['application/json']?.schema;
}

function responseSchema(doc: Doc, key: string): Schema {
  const schema = successSchema(operation(doc, key));
  assert.ok(schema, `${key}: no 2xx JSON schema`);
  if (key.endsWith('[]')) {
    const items = Object.values(schema.properties ?? {})[0]?.items;
    assert.ok(items, `${key}: not a wrapped array`);
    return items;
  }
  return schema.type === 'array' && schema.items ? schema.items : schema;
}

function enumOf(schema: Schema | undefined): unknown[] {
  if (schema === undefined) return [];
  return [
    ...(schema.enum ?? []),
    ...('const' in schema ? [schema.const] : []),
    ...(schema.anyOf ?? []).flatMap((s) => enumOf(s)),
  ];
}

const sorted = (list: readonly string[]): string[] => [...list].sort();

/** Every documented route of the surfaces the SDK speaks, as `METHOD path`. */
function documentedRoutes(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .filter(([path]) => SURFACES.some((prefix) => path.startsWith(prefix)))
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
}

describe('sdk: drift against /openapi.json and docs/errors.md', () => {
  let t: TestServer;
  let doc: Doc;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    doc = (await (await t.request('/openapi.json')).json()) as Doc;
  });
  after(() => t.close());

  it('every response type has exactly the documented fields, and the documented required ones', () => {
    for (const [key, list] of Object.entries(RESPONSE_FIELDS)) {
      const schema = responseSchema(doc, key);
      assert.deepEqual(sorted(list.fields), sorted(Object.keys(schema.properties ?? {})), `${key} fields`);
      assert.deepEqual(sorted(list.required), sorted(schema.required ?? []), `${key} required`);
    }
  });

  it('every request body type has exactly the documented fields', () => {
    for (const [key, list] of Object.entries(REQUEST_FIELDS)) {
      const schema = operation(doc, key).requestBody?.content['application/json']?.schema;
      assert.ok(schema, `${key}: no request body`);
      assert.deepEqual(sorted(list.fields), sorted(Object.keys(schema.properties ?? {})), `${key} fields`);
      assert.deepEqual(sorted(list.required), sorted(schema.required ?? []), `${key} required`);
    }
  });

  it('the command, control type, failure reason, webhook method, sandbox failure and lock health unions match the enums', () => {
    const body = (key: string, field: string) =>
      operation(doc, key).requestBody?.content['application/json']?.schema.properties?.[field];
    assert.deepEqual(
      sorted(COMMANDS),
      sorted(enumOf(body('POST /public/lock/{device_id}', 'command')) as string[]),
    );
    assert.deepEqual(
      sorted(PARTNER_COMMANDS),
      sorted(enumOf(body('POST /public/partners/automation', 'command')) as string[]),
    );
    assert.deepEqual(
      sorted(V1_CONTROL_TYPES),
      sorted(enumOf(body('POST /v1/locks/{lockId}/control', 'type')) as string[]),
    );
    const result = responseSchema(doc, 'GET /public/action-result');
    assert.deepEqual(sorted(TASK_FAILURE_REASONS), sorted(enumOf(result.properties?.error) as string[]));
    assert.deepEqual(
      sorted(['processing', 'terminated']),
      sorted(enumOf(result.properties?.status) as string[]),
    );
    assert.deepEqual(
      sorted(valuesOf<WebhookMethod>()(['GET', 'POST'])),
      sorted(enumOf(body('PUT /ext/webhook', 'method')) as string[]),
    );
    assert.deepEqual(
      sorted(valuesOf<SandboxFailure>()(['JAMMED', 'TIMEOUT', 'DEVICE_UNREACHABLE'])),
      sorted(enumOf(body('POST /_sim/locks/{device_id}', 'fail_next')).filter((v) => v !== null) as string[]),
    );
    const lock = responseSchema(doc, 'GET /ext/locks/{device_id}').properties ?? {};
    const lockEnum = (field: string) => sorted(enumOf(lock[field]).filter((v) => v !== null) as string[]);
    assert.deepEqual(sorted(valuesOf<LockRole>()(['owner', 'guest'])), lockEnum('role'));
    assert.deepEqual(sorted(valuesOf<BatteryState>()(['ok', 'low', 'critical'])), lockEnum('battery_state'));
    assert.deepEqual(sorted(valuesOf<DoorState>()(['open', 'closed'])), lockEnum('door'));
  });

  it('the access point of a lock has exactly the documented fields', () => {
    const lock = responseSchema(doc, 'GET /ext/locks/{device_id}').properties ?? {};
    const ap = (lock.access_point?.anyOf ?? []).find((s) => s.type === 'object');
    assert.ok(ap, 'access_point: an object or null');
    assert.deepEqual(sorted(ACCESS_POINT_FIELDS.fields), sorted(Object.keys(ap.properties ?? {})));
    assert.deepEqual(sorted(ACCESS_POINT_FIELDS.required), sorted(ap.required ?? []));
  });

  it('every route with a JSON answer has its SDK type; the others answer no body', () => {
    const covered = new Set(Object.keys(RESPONSE_FIELDS).map((k) => k.replace(/\[\]$/, '')));
    for (const key of documentedRoutes(doc)) {
      if (successSchema(operation(doc, key))) assert.ok(covered.has(key), `${key} has no SDK type`);
      else
        assert.ok(
          NO_BODY.includes(key) || STREAMS.includes(key),
          `${key}: no JSON answer, and not listed as answering none`,
        );
    }
  });

  it('every documented route is reached by an SDK method, and every public method is called here', async () => {
    const receiver: Receiver = await startReceiver();
    const sent: { route: string; status: number }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      sent.push({ route: `${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`, status: res.status });
      return res;
    };
    const c = new LockcloudClient({ baseUrl: t.url, apiKey: OWNER_KEY, fetch: recording });
    const sandbox = new LockcloudSandboxClient({ baseUrl: t.url, fetch: recording });
    let v1: LockcloudV1Client | undefined;
    const v1c = (): LockcloudV1Client => v1 ?? assert.fail('not logged in');
    let taskId = '';
    let deliveryId = '';
    let endpointId = '';
    let endpointDeliveryId = '';
    let madeKeyId = '';
    let grantId = '';
    let extTaskId = '';
    let invitationId = '';
    const other = new LockcloudClient({ baseUrl: t.url, apiKey: OTHER_KEY, fetch: recording });
    // In this order: each call must succeed.
    const calls: Record<string, () => Promise<unknown>> = {
      'LockcloudClient.listLocks': () => c.listLocks(),
      'LockcloudClient.getLock': () => c.getLock(LOCK_A),
      'LockcloudClient.sendCommand': async () => {
        taskId = (await c.sendCommand(LOCK_A, 'sync')).task_id;
      },
      'LockcloudClient.actionResult': () => c.actionResult(taskId),
      'LockcloudClient.waitForTask': () => c.waitForTask(taskId),
      'LockcloudClient.unlock': async () => c.waitForTask((await c.unlock(LOCK_A)).task_id),
      'LockcloudClient.lock': async () => c.waitForTask((await c.lock(LOCK_A)).task_id),
      'LockcloudClient.sync': async () => c.waitForTask((await c.sync(LOCK_A)).task_id),
      'LockcloudClient.run': () => c.run(LOCK_A, 'unlock'),
      'LockcloudClient.partnerAutomation': async () =>
        c.waitForTask((await c.partnerAutomation({ command: 'lock', deviceId: LOCK_A })).task_id),
      'WebhookApi.set': () => c.webhook.set({ url: `${receiver.url}/hook/{device_id}` }),
      'WebhookApi.get': () => c.webhook.get(),
      'WebhookApi.rotateSecret': () => c.webhook.rotateSecret(),
      'WebhookApi.test': async () => {
        deliveryId = (await c.webhook.test()).delivery_id;
      },
      'WebhookApi.deliveries': () => c.webhook.deliveries({ limit: 5 }),
      'WebhookApi.resend': () => c.webhook.resend(deliveryId),
      'WebhookApi.delete': () => c.webhook.delete(),
      'WebhookEndpointsApi.create': async () => {
        const made = await c.webhookEndpoints.create({
          url: `${receiver.url}/endpoint`,
          types: ['webhook.endpoint_created'],
        });
        endpointId = made.id;
      },
      'WebhookEndpointsApi.list': () => c.webhookEndpoints.list(),
      'WebhookEndpointsApi.get': () => c.webhookEndpoints.get(endpointId),
      'WebhookEndpointsApi.update': () => c.webhookEndpoints.update(endpointId, { retries: false }),
      'WebhookEndpointsApi.rotateSecret': () => c.webhookEndpoints.rotateSecret(endpointId),
      'WebhookEndpointsApi.deliveries': async () => {
        // Its own creation is the one event it takes.
        endpointDeliveryId = await eventually('the endpoint message', async () => {
          const page = await c.webhookEndpoints.deliveries(endpointId, { limit: 5 });
          return page.deliveries[0]?.id;
        });
      },
      'WebhookEndpointsApi.resend': () => c.webhookEndpoints.resend(endpointId, endpointDeliveryId),
      'WebhookEndpointsApi.delete': () => c.webhookEndpoints.delete(endpointId),
      'LocksApi.list': () => c.locks.list(),
      'LocksApi.get': () => c.locks.get(LOCK_A),
      'LocksApi.update': () => c.locks.update(LOCK_A, { battery_low: 25, battery_critical: 10 }),
      'KeysApi.create': async () => {
        madeKeyId = (await c.keys.create({ name: 'drift', scopes: ['locks:read'], lock_ids: [LOCK_A] })).id;
      },
      'KeysApi.list': () => c.keys.list(),
      'KeysApi.delete': () => c.keys.delete(madeKeyId),
      'LocksApi.command': async () => {
        extTaskId = (await c.locks.command(LOCK_A, 'sync')).task_id;
      },
      'LocksApi.task': () => c.locks.task(extTaskId),
      // The owner invites the other account to LOCK_B; the other account invites the owner to its
      // lock, which the owner accepts and gives back: every grant call succeeds with one key or the other.
      'GrantsApi.invite': async () => {
        grantId = (await c.grants.invite(LOCK_B, { email: OTHER, role: 'view' })).id;
      },
      'GrantsApi.list': () => c.grants.list(LOCK_B),
      'GrantsApi.update': () => c.grants.update(LOCK_B, grantId, { role: 'operate' }),
      'GrantsApi.revoke': () => c.grants.revoke(LOCK_B, grantId),
      'GrantsApi.invitations': async () => {
        invitationId = (await other.grants.invite(OTHER_LOCK, { email: OWNER, role: 'view' })).id;
        assert.equal((await c.grants.invitations()).invitations[0]?.id, invitationId);
      },
      'GrantsApi.accept': () => c.grants.accept(invitationId),
      'GrantsApi.mine': () => c.grants.mine(),
      'GrantsApi.decline': () => c.grants.decline(invitationId),
      'EventsApi.page': () => c.events.page({ type: 'lock.', limit: 2 }),
      'EventsApi.list': async () => {
        const seen: string[] = [];
        for await (const e of c.events.list({ deviceId: LOCK_A, limit: 2 })) seen.push(e.id);
        assert.ok(seen.length > 2, 'more than one page');
        assert.equal(new Set(seen).size, seen.length, 'each event once');
      },
      // The live stream: a hand turn after the newest event, read back by resuming after that event.
      'EventsApi.stream': async () => {
        const [newest] = (await c.events.page({ deviceId: LOCK_A, order: 'newest-first', limit: 1 })).events;
        await sandbox.setLock(LOCK_A, { locked: false });
        const stop = AbortSignal.timeout(10_000);
        for await (const e of c.events.stream({
          deviceId: LOCK_A,
          lastEventId: newest?.id,
          signal: stop,
        })) {
          assert.equal(e.device_id, LOCK_A);
          assert.ok(newest === undefined || e.id > newest.id, 'after the resume point');
          return;
        }
        assert.fail('the stream ended without an event');
      },
      'LockcloudV1Client.login': async () => {
        v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password', { fetch: recording });
      },
      'LockcloudV1Client.listLocks': () => v1c().listLocks(),
      'LockcloudV1Client.getLock': () => v1c().getLock(LOCK_A),
      'LockcloudV1Client.control': () => v1c().control(LOCK_A, 'lock'),
      'LockcloudSandboxClient.setLock': () => sandbox.setLock(LOCK_A, { battery: 90 }),
      'LockcloudSandboxClient.addLock': () => sandbox.addLock({ owner: OWNER, nickname: 'Added' }),
      'LockcloudSandboxClient.getClock': () => sandbox.getClock(),
      'LockcloudSandboxClient.advanceClock': () => sandbox.advanceClock(1),
      'LockcloudSandboxClient.changeAccount': () => sandbox.changeAccount(OTHER, { password: 'changed' }),
      'LockcloudSandboxClient.mailbox': () => sandbox.mailbox(OWNER),
      'LockcloudSandboxClient.reset': () => sandbox.reset(),
    };
    try {
      for (const [name, call] of Object.entries(calls))
        await call().catch((e: unknown) => assert.fail(`${name}: ${e}`));
    } finally {
      await receiver.close();
    }

    const routes = documentedRoutes(doc);
    const pattern = (route: string) => new RegExp(`^${route.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const reached = (route: string) => sent.some((s) => s.status < 300 && pattern(route).test(s.route));
    assert.deepEqual(
      routes.filter((route) => !reached(route)),
      [],
      'documented routes no SDK method reached',
    );
    assert.deepEqual(
      sent.filter((s) => !routes.some((route) => pattern(route).test(s.route))),
      [],
      'SDK requests to undocumented routes',
    );

    const methods = (name: string, of: object): string[] =>
      Object.entries(Object.getOwnPropertyDescriptors(of))
        .filter(([key, d]) => key !== 'constructor' && typeof d.value === 'function')
        .map(([key]) => `${name}.${key}`);
    const everyMethod = [
      ...methods('LockcloudClient', LockcloudClient.prototype),
      ...methods('WebhookApi', Object.getPrototypeOf(c.webhook) as object),
      ...methods('EventsApi', Object.getPrototypeOf(c.events) as object),
      ...methods('WebhookEndpointsApi', Object.getPrototypeOf(c.webhookEndpoints) as object),
      ...methods('LocksApi', Object.getPrototypeOf(c.locks) as object),
      ...methods('KeysApi', Object.getPrototypeOf(c.keys) as object),
      ...methods('GrantsApi', Object.getPrototypeOf(c.grants) as object),
      ...methods('LockcloudV1Client', LockcloudV1Client.prototype),
      ...methods('LockcloudV1Client', LockcloudV1Client),
      ...methods('LockcloudSandboxClient', LockcloudSandboxClient.prototype),
    ];
    assert.deepEqual(sorted(Object.keys(calls)), sorted(everyMethod));
  });

  it('every error of docs/errors.md has its class, and no class is for an undocumented one', () => {
    const text = readFileSync('docs/errors.md', 'utf8');
    const section = (title: string) => {
      const start = text.indexOf(`\n## ${title}`);
      assert.ok(start >= 0, `docs/errors.md has no "## ${title}"`);
      const end = text.indexOf('\n## ', start + 1);
      return text.slice(start, end < 0 ? undefined : end);
    };
    const codesOf = (title: string) =>
      new Set([...section(title).matchAll(/`\{"error":"([A-Z_]+)/g)].map((m) => m[1] ?? ''));
    const v3Codes = codesOf('v3');
    const v1Codes = new Set([...section('v1').matchAll(/`\{"code":(\d+)/g)].map((m) => Number(m[1])));
    assert.ok(v3Codes.size >= 8 && v1Codes.size >= 20);
    // "Forbidden" is the v3 document's other spelling of ACCESS_DENY.
    assert.deepEqual(sorted([...v3Codes, 'Forbidden']), sorted(Object.keys(V3_ERROR_CLASSES)));
    assert.deepEqual(
      [...v1Codes].sort((a, b) => a - b),
      Object.keys(V1_ERROR_CLASSES).map(Number),
    );
    // /ext and /_sim answer in the v3 shape: each of their codes is one of the v3 classes.
    for (const title of ['Extension API (/ext)', 'Sandbox (/_sim)']) {
      const codes = codesOf(title);
      assert.ok(codes.size >= 4, title);
      const unknown = [...codes].filter((code) => !(code in V3_ERROR_CLASSES));
      assert.deepEqual(unknown, [], `${title}: codes without an SDK class`);
    }
  });
});
