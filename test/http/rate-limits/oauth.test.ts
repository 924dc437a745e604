/**
 * The OAuth endpoints under the rate limits (docs/rate-limits.md, "OAuth"): each request to the
 * authorization endpoint stores an interaction and each to the token endpoint looks a client up, so
 * a flood from one address is answered 429 in the RFC 6749 shape before oidc-provider sees it; its
 * refusals spend the address's excess, and a blocked address is refused on every /oauth path, as on
 * v3 and /ext.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../../support/server.ts';
import {
  advance,
  call,
  header,
  limitsFile,
  OTHER_ADDRESS,
  type Reply,
  rateLimitFields,
  retryAfter,
  summarize,
  WARM_UP_ADDRESS,
} from './helpers.ts';

const THIRD_ADDRESS = '127.0.0.3';
const BLOCK_SECONDS = 30 * 60;

/** A token request no client can win: oidc-provider's own 401 invalid_client when let through. */
const tokenRequest = (from?: string): Promise<Reply> =>
  call(server, '/oauth/token', {
    method: 'POST',
    body: 'grant_type=authorization_code&code=nothing&client_id=lca_nobody',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    ...(from === undefined ? {} : { from }),
  });

let server: TestServer;

describe('rate limits on /oauth', () => {
  let file: ReturnType<typeof limitsFile>;
  before(async () => {
    file = limitsFile({
      oauth: {
        'POST /oauth/token': { burst: 2, per_second: 1 },
        'GET /oauth/auth': { burst: 1, per_second: 1 },
      },
      block: { excess: 5 },
    });
    server = await startServer({ flags: ['--rate-limits', file.path] });
    // The buckets refill in real time (the sandbox clock is the wall clock plus an offset), and the
    // first request that needs oidc-provider loads it (src/http/oauth/server.ts makes it on first
    // use): 2.2 s on a loaded CI machine, after which the burst was whole again and the third
    // request of the first test got through. That first request is made here, from an address of
    // its own.
    assert.equal((await tokenRequest(WARM_UP_ADDRESS)).status, 401);
  });
  after(async () => {
    await server.close();
    file.remove();
  });

  it('lets the burst through to oidc-provider, with the RateLimit fields, then answers 429 in the RFC 6749 shape', async () => {
    const first = await tokenRequest();
    assert.equal(first.status, 401, JSON.stringify(first.body));
    assert.equal((first.body as { error: string }).error, 'invalid_client');
    assert.deepEqual(rateLimitFields(first), {
      policyName: 'endpoint',
      q: 2,
      w: 2,
      name: 'endpoint',
      r: 1,
      t: 1,
    });
    assert.equal((await tokenRequest()).status, 401);
    const refused = await tokenRequest();
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, {
      error: 'temporarily_unavailable',
      error_description: "over this endpoint's rate limit; try again in 1 s",
    });
    assert.equal(retryAfter(refused), 1);
    assert.match(header(refused, 'x-request-id') ?? '', /.+/);
    assert.match(header(refused, 'content-type') ?? '', /^application\/json/);
    // Another address has a budget of its own; time refills this one.
    assert.equal((await tokenRequest(OTHER_ADDRESS)).status, 401);
    await advance(server, 1);
    assert.equal((await tokenRequest()).status, 401);
  });

  it('limits the authorization endpoint, whose every request stores an interaction', async () => {
    const path = '/oauth/auth?client_id=lca_nobody&response_type=code&scope=locks:read';
    const first = await call(server, path, { from: THIRD_ADDRESS });
    assert.notEqual(first.status, 429);
    const second = await call(server, path, { from: THIRD_ADDRESS });
    assert.equal(second.status, 429);
    assert.equal((second.body as { error: string }).error, 'temporarily_unavailable');
    // Its query does not make it another endpoint; discovery, a fixed document, is not limited.
    assert.equal((await call(server, '/oauth/auth', { from: THIRD_ADDRESS })).status, 429);
    assert.equal(
      (await call(server, '/oauth/.well-known/openid-configuration', { from: THIRD_ADDRESS })).status,
      200,
    );
  });

  it('counts its refusals toward the block, which then holds every /oauth path and the APIs', async () => {
    const address = '127.0.0.4';
    const statuses: number[] = [];
    let reply = await tokenRequest(address);
    for (let i = 0; i < 50 && header(reply, 'ratelimit-policy')?.startsWith('"blocked"') !== true; i++) {
      statuses.push(reply.status);
      reply = await tokenRequest(address);
    }
    assert.equal(reply.status, 429, summarize(statuses));
    assert.ok(statuses.includes(429), summarize(statuses));
    assert.equal(retryAfter(reply), BLOCK_SECONDS);
    assert.deepEqual(reply.body, {
      error: 'temporarily_unavailable',
      error_description: `this client address is blocked for exceeding the rate limits again and again; try again in ${BLOCK_SECONDS} s`,
    });
    const discovery = await call(server, '/oauth/.well-known/openid-configuration', { from: address });
    assert.equal(discovery.status, 429);
    assert.equal(retryAfter(discovery), BLOCK_SECONDS);
    // The same block as the APIs': v3 answers it in its published shape.
    const v3 = await call(server, '/public/locks', { from: address, key: 'anything' });
    assert.deepEqual([v3.status, v3.body], [403, { error: 'ACCESS_DENY' }]);
  });
});

describe('the rate-limits file: oauth', () => {
  it('refuses an endpoint it does not limit, with the field named', async () => {
    const file = limitsFile({ oauth: { 'GET /oauth/jwks': { burst: 1, per_second: 1 } } });
    try {
      await assert.rejects(
        startServer({ flags: ['--rate-limits', file.path] }),
        /oauth\["GET \/oauth\/jwks"\]/,
      );
    } finally {
      file.remove();
    }
  });
});
