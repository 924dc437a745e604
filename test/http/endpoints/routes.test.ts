/**
 * /ext/webhook-endpoints, black-box: every route's answers and errors (docs/webhooks.md
 * "Endpoints"; the /ext error shape of docs/errors.md), the bound of 10 per account, another
 * account's endpoint as unknown, and the endpoint's own events in the log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  answer,
  LOCK_A,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { FLAGS } from '../../support/webhooks.ts';
import { createEndpoint, type EndpointAnswer, listedEvents, waitForEndpointLog } from './helpers.ts';

const BASE = '/ext/webhook-endpoints';
const UNKNOWN = 'we_00000000000000000000000000000000';

describe('/ext/webhook-endpoints routes', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  /** `key` '' sends no Authorization header. */
  const call = async (method: string, path: string, json?: unknown, key = OWNER_KEY) =>
    answer(
      await t.request(path, {
        method,
        ...(key === '' ? {} : { key }),
        ...(json === undefined ? {} : { json }),
      }),
    );

  async function badParams(method: string, path: string, json: unknown, field: string): Promise<void> {
    const { status, body } = await call(method, path, json);
    assert.equal(status, 400, `${method} ${path} ${JSON.stringify(json)}: ${JSON.stringify(body)}`);
    const { error, message } = body as { error: string; message: string };
    assert.equal(error, 'BAD_PARAMS');
    assert.ok(message.includes(field), `${JSON.stringify(json)}: message ${message} names ${field}`);
  }

  it('creates, lists, reads, changes and removes an endpoint; the secret is answered once', async () => {
    const made = await createEndpoint(t, {
      url: 'https://hooks.example.com/in',
      types: ['lock.', 'command.failed'],
      device_ids: [LOCK_A.toUpperCase()],
    });
    assert.match(made.id, /^we_[0-9a-f]{32}$/);
    assert.match(made.secret, /^whsec_/);
    assert.deepEqual(
      { ...made, id: '', secret: '', created_at: '' },
      {
        id: '',
        url: 'https://hooks.example.com/in',
        types: ['lock.', 'command.failed'],
        device_ids: [LOCK_A],
        retries: true,
        enabled: true,
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        created_at: '',
        secret: '',
      },
    );
    const one = await call('GET', `${BASE}/${made.id}`);
    assert.equal(one.status, 200);
    assert.equal((one.body as { secret?: string }).secret, undefined, 'never shown again');
    const list = await call('GET', BASE);
    assert.deepEqual(
      (list.body as { endpoints: EndpointAnswer[] }).endpoints.map((e) => e.id),
      [made.id],
    );
    const changed = await call('PATCH', `${BASE}/${made.id}`, { types: [], retries: false });
    assert.equal(changed.status, 200);
    assert.deepEqual(
      [
        (changed.body as EndpointAnswer).types,
        (changed.body as EndpointAnswer).retries,
        (changed.body as EndpointAnswer).url,
      ],
      [[], false, 'https://hooks.example.com/in'],
    );
    const disabled = await call('PATCH', `${BASE}/${made.id}`, { enabled: false });
    assert.equal((disabled.body as EndpointAnswer).enabled, false);
    assert.equal((disabled.body as EndpointAnswer).disabled_reason, 'disabled by the account');
    const enabled = await call('PATCH', `${BASE}/${made.id}`, { enabled: true });
    assert.deepEqual(
      [(enabled.body as EndpointAnswer).enabled, (enabled.body as EndpointAnswer).disabled_at],
      [true, null],
    );
    assert.equal((await call('DELETE', `${BASE}/${made.id}`)).status, 204);
    assert.equal((await call('GET', `${BASE}/${made.id}`)).status, 404);
    assert.equal((await call('DELETE', `${BASE}/${made.id}`)).status, 404);
    const types = (await listedEvents(t))
      .map((e) => e.type)
      .filter((type) => String(type).startsWith('webhook.endpoint_'));
    assert.deepEqual(types, [
      'webhook.endpoint_created',
      'webhook.endpoint_updated',
      'webhook.endpoint_updated',
      'webhook.endpoint_disabled',
      'webhook.endpoint_updated',
      'webhook.endpoint_removed',
    ]);
    const created = (await listedEvents(t)).find((e) => e.type === 'webhook.endpoint_created');
    assert.deepEqual((created?.data as Record<string, unknown> | undefined)?.host, 'hooks.example.com');
    assert.ok(!JSON.stringify(await listedEvents(t)).includes('whsec_'), 'no secret in the log');
  });

  it('refuses bad fields with 400 BAD_PARAMS naming the field', async () => {
    await badParams('POST', BASE, {}, 'url');
    await badParams('POST', BASE, { url: 5 }, 'url');
    await badParams('POST', BASE, { url: 'ftp://x.example/' }, 'url');
    await badParams('POST', BASE, { url: 'https://u:p@x.example/' }, 'url');
    await badParams('POST', BASE, { url: 'https://x.example/{device_id}' }, 'url');
    await badParams('POST', BASE, { url: `https://x.example/${'a'.repeat(300)}` }, 'url');
    await badParams('POST', BASE, { url: 'not a url' }, 'url');
    await badParams('POST', BASE, { url: 'https://x.example/', types: ['nope.'] }, 'types');
    await badParams('POST', BASE, { url: 'https://x.example/', types: 'lock.' }, 'types');
    await badParams('POST', BASE, { url: 'https://x.example/', types: ['Lock.'] }, 'types');
    await badParams('POST', BASE, { url: 'https://x.example/', device_ids: [OTHER_LOCK] }, 'device_ids');
    await badParams('POST', BASE, { url: 'https://x.example/', device_ids: ['no-such-lock'] }, 'device_ids');
    await badParams('POST', BASE, { url: 'https://x.example/', retries: 'yes' }, 'retries');
    await badParams('POST', BASE, { url: 'https://x.example/', extra: 1 }, 'additional properties');
    const made = await createEndpoint(t, { url: 'https://x.example/' });
    await badParams('PATCH', `${BASE}/${made.id}`, { url: 'gopher://x/' }, 'url');
    await badParams('PATCH', `${BASE}/${made.id}`, { enabled: 'no' }, 'enabled');
    await badParams('PATCH', `${BASE}/${made.id}`, { device_ids: [OTHER_LOCK] }, 'device_ids');
    await badParams('GET', `${BASE}/${made.id}/deliveries?limit=0`, undefined, 'limit');
    await badParams('GET', `${BASE}/${made.id}/deliveries?limit=501`, undefined, 'limit');
    await badParams('GET', `${BASE}/${made.id}/deliveries?cursor=msg_nope`, undefined, 'cursor');
    await badParams('GET', `${BASE}/${made.id}/deliveries?other=1`, undefined, 'additional properties');
    assert.equal((await call('DELETE', `${BASE}/${made.id}`)).status, 204);
  });

  it('answers 404 for an unknown or malformed id and for another account’s endpoint, 401 without a key', async () => {
    const mine = await createEndpoint(t, { url: 'https://x.example/mine' });
    for (const id of [UNKNOWN, 'nope', mine.id]) {
      const key = id === mine.id ? OTHER_KEY : OWNER_KEY;
      for (const [method, path, json] of [
        ['GET', `${BASE}/${id}`, undefined],
        ['PATCH', `${BASE}/${id}`, { retries: false }],
        ['DELETE', `${BASE}/${id}`, undefined],
        ['POST', `${BASE}/${id}/rotate-secret`, undefined],
        ['GET', `${BASE}/${id}/deliveries`, undefined],
        ['POST', `${BASE}/${id}/deliveries/msg_x/resend`, undefined],
      ] as const) {
        const { status, body } = await call(method, path, json, key);
        assert.equal(status, 404, `${method} ${path}`);
        assert.equal((body as { error: string }).error, 'NOT_FOUND');
      }
    }
    const resend = await call('POST', `${BASE}/${mine.id}/deliveries/msg_unknown/resend`);
    assert.deepEqual(resend, { status: 404, body: { error: 'NOT_FOUND', message: 'no such delivery' } });
    for (const [method, path] of [
      ['POST', BASE],
      ['GET', BASE],
      ['GET', `${BASE}/${mine.id}`],
      ['PATCH', `${BASE}/${mine.id}`],
      ['DELETE', `${BASE}/${mine.id}`],
      ['POST', `${BASE}/${mine.id}/rotate-secret`],
      ['GET', `${BASE}/${mine.id}/deliveries`],
      ['POST', `${BASE}/${mine.id}/deliveries/msg_x/resend`],
    ] as const) {
      assert.deepEqual(
        await call(method, path, undefined, ''),
        { status: 401, body: { error: 'UNAUTHORIZED' } },
        `${method} ${path}`,
      );
    }
    assert.equal((await call('DELETE', `${BASE}/${mine.id}`)).status, 204);
  });

  it('holds at most 10 endpoints per account', async () => {
    const made: string[] = [];
    for (let i = 0; i < 10; i++) made.push((await createEndpoint(t, { url: `https://x.example/${i}` })).id);
    await badParams('POST', BASE, { url: 'https://x.example/11' }, 'at most 10');
    // Another account's count is its own.
    assert.equal((await call('POST', BASE, { url: 'https://x.example/o' }, OTHER_KEY)).status, 201);
    for (const id of made) assert.equal((await call('DELETE', `${BASE}/${id}`)).status, 204);
  });
});

describe('/ext/webhook-endpoints in production: the address policy at creation', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--production', ...FLAGS] });
  });
  after(() => t.close());

  it('refuses loopback, private and metadata literals and localhost; a name is judged at send', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.0.0.1/',
      'http://169.254.169.254/latest',
      'http://localhost:9/',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]:9/',
    ]) {
      const { status, body } = await answer(
        await t.request(BASE, { method: 'POST', key: OWNER_KEY, json: { url } }),
      );
      assert.deepEqual(
        { status, body },
        {
          status: 400,
          body: { error: 'BAD_PARAMS', message: 'url: the destination address is not allowed' },
        },
        url,
      );
    }
    assert.equal((await createEndpoint(t, { url: 'https://hooks.example.com/in' })).enabled, true);
  });

  it('refuses at send a name that does not resolve, as the webhook does (one text, nothing sent)', async () => {
    const made = await createEndpoint(t, {
      url: 'http://nothing.invalid/hook',
      types: ['webhook.endpoint_updated'],
    });
    // Its own change is an event it takes.
    const res = await t.request(`${BASE}/${made.id}`, {
      method: 'PATCH',
      key: OWNER_KEY,
      json: { retries: false },
    });
    assert.equal(res.status, 200);
    const [entry] = await waitForEndpointLog(t, made.id, 'the refusal', (l) => l[0]?.status === 'failed');
    assert.deepEqual(
      [entry?.event, entry?.attempts, entry?.response_status, entry?.error],
      [
        'webhook.endpoint_updated',
        1,
        null,
        'the destination address is not allowed or could not be resolved',
      ],
    );
  });
});
