/**
 * Issue 24 on PostgreSQL with several processes behind one public URL, as a load balancer serves
 * them: an authorization started on one process resumes on the other, its code is exchanged on
 * either, the token works on both, a refresh token rotated on one is reuse on the other (the whole
 * family revoked), and a revocation on one is refused by the next request to the other. Every
 * process derives the same signing and cookie keys from the shared server key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Seed } from '../../src/app/seed/schema.ts';
import { FormClient } from '../dashboard/support.ts';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { INSECURE, oauth, oauthError } from '../support/oauth.ts';
import type { TestServer } from '../support/server.ts';

const OWNER = 'owner@example.com';
const DEVELOPER = 'developer@example.com';
const LOCK = '00000000-0000-4000-8000-000000000b01';
const AP = '00000000-0000-4000-8000-0000000000b1';
/** What the load balancer answers at: every process's --public-url, never itself listened on. */
const PUBLIC = 'http://lockcloud.test';
const REDIRECT = 'http://127.0.0.1:9/callback';
const APP_ID = 'lca_cluster-test-app';

const seed: Seed = {
  accounts: [
    { email: OWNER, password: 'owner-password-1', verified: true },
    { email: DEVELOPER, password: 'developer-password-1', verified: true },
  ],
  access_points: [{ id: AP, account: OWNER, secret: 'oauth-cluster-ap-secret-1' }],
  locks: [{ device_id: LOCK, owner: OWNER, locked: true, access_point_id: AP, latency_ms: 0 }],
};

describe('OAuth across two processes on PostgreSQL behind one public URL', () => {
  let cluster: Cluster;
  let as: oauth.AuthorizationServer;
  const url = (n: number) => cluster.servers[n]?.url ?? '';
  /** The load balancer: the public URL, sent to process n. */
  const via = (n: number, address: string) => address.replace(PUBLIC, url(n));
  /** The server's metadata as the app reads it, each endpoint on process n. */
  const endpoints = (n: number): oauth.AuthorizationServer =>
    Object.fromEntries(
      Object.entries(as).map(([k, v]) => [k, k !== 'issuer' && typeof v === 'string' ? via(n, v) : v]),
    ) as oauth.AuthorizationServer;
  const client: oauth.Client = { client_id: APP_ID };

  before(async () => {
    cluster = await startCluster({ servers: 2, seed, flags: ['--public-url', PUBLIC] });
    // A public app (PKCE only), registered as the dashboard does it, in the shared database.
    const db = new pg.Client({ connectionString: cluster.db.url });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT id FROM accounts WHERE email = $1', [DEVELOPER]);
      await db.query(
        `INSERT INTO oauth_apps (id, account_id, name, redirect_uris, kind, secret_hash, secret_prefix, created_at, updated_at)
         VALUES ($1, $2, 'Cluster app', $3, 'public', NULL, NULL, 0, 0)`,
        [APP_ID, rows[0]?.id, JSON.stringify([REDIRECT])],
      );
    } finally {
      await db.end();
    }
    const issuer = new URL(`${PUBLIC}/oauth`);
    const res = await fetch(`${url(0)}/oauth/.well-known/openid-configuration`);
    as = await oauth.processDiscoveryResponse(issuer, res);
  });
  after(() => cluster?.close());

  /** The browser's walk: each address on the public URL goes to the process `route` picks. */
  async function walk(browser: FormClient, start: string, route: (hop: number) => number): Promise<string> {
    let address = start;
    for (let hop = 0; hop < 10; hop++) {
      if (address.startsWith(REDIRECT)) return address;
      const n = route(hop);
      const target = new URL(via(n, address), url(n));
      const res = await fetch(target, { headers: { cookie: browser.cookieHeader() }, redirect: 'manual' });
      browser.remember(res);
      const text = await res.text();
      const location = res.headers.get('location');
      if (res.status === 200 && /data-testid="consent"/.test(text)) {
        const csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
        const answered = await fetch(target, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            cookie: browser.cookieHeader(),
            'content-type': 'application/x-www-form-urlencoded',
            origin: target.origin,
          },
          body: new URLSearchParams([
            ['_csrf', csrf],
            ['decision', 'allow'],
            ['scope', 'locks:read'],
            ['locks', 'all'],
          ]),
        });
        browser.remember(answered);
        assert.equal(answered.status, 303, await answered.text());
        address = new URL(answered.headers.get('location') ?? '', target).href;
        continue;
      }
      if (location === null)
        throw new Error(`stopped at ${target.href}: ${res.status} ${text.slice(0, 200)}`);
      address = new URL(location, target).href;
    }
    throw new Error('too many hops');
  }

  async function tokens(route: (hop: number) => number) {
    const browser = new FormClient({ url: url(0) } as TestServer);
    await browser.get('/dashboard/login');
    const login = await browser.post('/dashboard/login', { email: OWNER, password: 'owner-password-1' });
    assert.equal(login.status, 303);
    const verifier = oauth.generateRandomCodeVerifier();
    const start = new URL(as.authorization_endpoint ?? '');
    start.search = new URLSearchParams({
      client_id: APP_ID,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'locks:read',
      state: 's',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const callback = new URL(await walk(browser, start.href, route));
    const params = oauth.validateAuthResponse(as, client, callback, 's');
    // The code is exchanged on process 1, whatever served the authorization.
    const at = endpoints(1);
    const res = await oauth.authorizationCodeGrantRequest(
      at,
      client,
      oauth.None(),
      params,
      REDIRECT,
      verifier,
      INSECURE,
    );
    return oauth.processAuthorizationCodeResponse(at, client, res);
  }

  const locks = (n: number, token: string) =>
    fetch(`${url(n)}/public/locks`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  it('authorizes on one process, resumes on the other, and the token works on both', async () => {
    // The request and consent on process 0, the resume (and the code) on process 1.
    const got = await tokens((hop) => (hop === 0 ? 0 : 1));
    assert.equal(await locks(0, got.access_token), 200);
    assert.equal(await locks(1, got.access_token), 200);
  });

  it('holds rotation and reuse across processes, and a revocation on one on the next request to the other', async () => {
    const first = await tokens(() => 0);
    const refreshAt = async (n: number, token: string) => {
      const at = endpoints(n);
      const res = await oauth.refreshTokenGrantRequest(at, client, oauth.None(), token, INSECURE);
      return oauth.processRefreshTokenResponse(at, client, res);
    };
    const second = await refreshAt(0, first.refresh_token ?? '');
    assert.equal(await locks(1, second.access_token), 200);
    assert.equal(await oauthError(refreshAt(1, first.refresh_token ?? '')), 'invalid_grant');
    assert.equal(await locks(0, second.access_token), 401, 'the family is gone');

    const third = await tokens(() => 1);
    assert.equal(await locks(0, third.access_token), 200);
    const at = endpoints(0);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(at, client, oauth.None(), third.access_token, INSECURE),
    );
    assert.equal(await locks(1, third.access_token), 401);
  });
});
