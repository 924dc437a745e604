/**
 * The OAuth 2.0 authorization code flow end to end over HTTP (issue 24): a real client library
 * (oauth4webapi) for the app's side, a signed-in browser for the owner's, against a real server.
 * The browser-driven version of the same flow is test/dashboard/browser-oauth.test.ts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { sessionActor } from '../../../src/domain/event.ts';
import { oidcContextOn } from '../../../src/http/oauth/context-tax.ts';
import { FormClient } from '../../dashboard/support.ts';
import {
  authorizationUrl,
  authorize,
  discover,
  exchange,
  follow,
  oauth,
  oauthError,
  REDIRECT,
  refresh,
  registerApp,
  revoke,
  signedIn,
} from '../../support/oauth.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OWNER,
  startServer,
  type TestServer,
} from '../../support/server.ts';

describe('OAuth authorization code flow', () => {
  let t: TestServer;
  let as: oauth.AuthorizationServer;
  let browser: FormClient;
  before(async () => {
    t = await startServer();
    as = await discover(t);
    browser = await signedIn(t, OWNER, 'owner-password');
  });
  after(() => t.close());

  const get = (path: string, token: string) => t.request(path, { key: `Bearer ${token}` });

  it('publishes RFC 8414 metadata: code flow, S256 only, revocation, no implicit or password grant', async () => {
    assert.equal(as.issuer, `${t.url}/oauth`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(as.response_types_supported, ['code']);
    assert.deepEqual([...(as.grant_types_supported ?? [])].sort(), ['authorization_code', 'refresh_token']);
    assert.equal(as.revocation_endpoint, `${t.url}/oauth/token/revocation`);
    for (const scope of ['locks:read', 'locks:operate', 'events:read', 'webhooks:manage', 'keys:manage'])
      assert.ok(as.scopes_supported?.includes(scope), scope);
  });

  it('issues a token that reads only the locks the owner picked, with the scopes picked', async () => {
    const app = await registerApp(t, OTHER);
    const { callback, verifier } = await authorize(
      t,
      browser,
      as,
      app,
      { scope: 'locks:read locks:operate' },
      { decision: 'allow', scope: ['locks:read'], locks: 'some', lock: [LOCK_B] },
    );
    const tokens = await exchange(as, app, callback, verifier);
    assert.match(tokens.access_token, /^lco_/);
    assert.match(tokens.refresh_token ?? '', /^lcr_/);
    assert.equal(tokens.scope, 'locks:read');
    assert.equal(tokens.expires_in, 3600);

    const v3 = await get('/public/locks', tokens.access_token);
    assert.equal(v3.status, 200);
    const ids = ((await v3.json()) as { device_id: string }[]).map((l) => l.device_id);
    assert.deepEqual(ids, [LOCK_B]);
    // The bare form the published API uses for keys works too.
    assert.equal((await t.request(`/public/lock/${LOCK_B}`, { key: tokens.access_token })).status, 200);
    assert.equal((await get(`/ext/locks/${LOCK_B}`, tokens.access_token)).status, 200);
    // Outside its locks, outside its scopes.
    assert.notEqual((await get(`/public/lock/${LOCK_A}`, tokens.access_token)).status, 200);
    const unlock = await t.request(`/public/lock/${LOCK_B}`, {
      method: 'POST',
      key: `Bearer ${tokens.access_token}`,
      json: { command: 'unlock' },
    });
    assert.equal(unlock.status, 403);
  });

  it("switches oidc-provider's context storage off once no OAuth request is in flight", async () => {
    // On Node 20 and 22 the storage left on keeps async_hooks' promise hooks on for every request
    // after (src/http/oauth/context-tax.ts): several at once, then a whole flow.
    await Promise.all(Array.from({ length: 5 }, () => discover(t)));
    assert.equal(oidcContextOn(), false);
    const app = await registerApp(t, OTHER, { name: 'Context' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, callback, verifier);
    assert.equal(oidcContextOn(), false);
    assert.equal((await get('/public/locks', tokens.access_token)).status, 200);
  });

  it('rotates refresh tokens, and a reused one revokes the whole family', async () => {
    const app = await registerApp(t, OTHER, { name: 'Rotating' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const first = await exchange(as, app, callback, verifier);
    const second = await refresh(as, app, first.refresh_token ?? '');
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await get('/public/locks', second.access_token)).status, 200);
    assert.equal(await oauthError(refresh(as, app, first.refresh_token ?? '')), 'invalid_grant');
    // The family is gone: the newest refresh token and the access token with it.
    assert.equal(await oauthError(refresh(as, app, second.refresh_token ?? '')), 'invalid_grant');
    assert.equal((await get('/public/locks', second.access_token)).status, 401);
  });

  it('keeps no code, token or client secret in clear: only their hashes', async () => {
    const app = await registerApp(t, OTHER, { name: 'Hashed' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, callback, verifier);
    const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
    try {
      const tables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((r) => r.name);
      const everything = tables
        .map((name) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).raw().all()))
        .join('\n');
      const secrets = {
        code: callback.searchParams.get('code') ?? '',
        access: tokens.access_token,
        refresh: tokens.refresh_token ?? '',
        secret: app.secret ?? '',
      };
      for (const [what, value] of Object.entries(secrets)) {
        assert.ok(value.length > 20, what);
        assert.equal(everything.includes(value), false, `the ${what} is stored in clear`);
      }
    } finally {
      db.close();
    }
  });

  it('serves a public app with PKCE alone', async () => {
    const app = await registerApp(t, OTHER, { name: 'Phone app', kind: 'public' });
    assert.equal(app.secret, null);
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, callback, verifier);
    assert.equal((await get('/public/locks', tokens.access_token)).status, 200);
  });

  it('refuses a wrong PKCE verifier and a code used twice (invalid_grant)', async () => {
    const app = await registerApp(t, OTHER, { name: 'Verifier' });
    const first = await authorize(t, browser, as, app, { scope: 'locks:read' });
    assert.equal(
      await oauthError(exchange(as, app, first.callback, oauth.generateRandomCodeVerifier())),
      'invalid_grant',
    );
    const second = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, second.callback, second.verifier);
    assert.equal(await oauthError(exchange(as, app, second.callback, second.verifier)), 'invalid_grant');
    // A code presented twice revokes what it gave (RFC 6749 section 4.1.2).
    assert.equal((await get('/public/locks', tokens.access_token)).status, 401);
  });

  it('refuses an expired code (invalid_grant)', async () => {
    const app = await registerApp(t, OTHER, { name: 'Slow app' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    await advanceClock(t, 61);
    assert.equal(await oauthError(exchange(as, app, callback, verifier)), 'invalid_grant');
  });

  it('refuses a request without PKCE, with plain PKCE, or to a redirect URI not registered', async () => {
    const app = await registerApp(t, OTHER, { name: 'Sloppy app' });
    const verifier = oauth.generateRandomCodeVerifier();
    const errorOf = async (params: Record<string, string | undefined>) => {
      const done = await follow(
        t,
        browser,
        await authorizationUrl(as, app, { scope: 'locks:read', verifier, params }),
      );
      if (!done.url.startsWith(REDIRECT)) return done.status;
      // An implicit response_type would answer in the fragment: read both.
      const url = new URL(done.url);
      return url.searchParams.get('error') ?? new URLSearchParams(url.hash.slice(1)).get('error');
    };
    assert.equal(
      await errorOf({ code_challenge: undefined, code_challenge_method: undefined }),
      'invalid_request',
    );
    assert.equal(await errorOf({ code_challenge_method: 'plain' }), 'invalid_request');
    assert.equal(await errorOf({ response_type: 'token' }), 'unsupported_response_type');
    // Never sent to an address not registered: the server answers the browser itself.
    assert.equal(await errorOf({ redirect_uri: 'http://127.0.0.1:9/other' }), 400);
    assert.equal(await errorOf({ redirect_uri: `${REDIRECT}/` }), 400);
  });

  it('sends invalid_scope to the app when nothing lockcloud knows is asked for', async () => {
    const app = await registerApp(t, OTHER, { name: 'Unknown scopes' });
    const verifier = oauth.generateRandomCodeVerifier();
    const done = await follow(
      t,
      browser,
      await authorizationUrl(as, app, { scope: 'locks:write', verifier }),
    );
    const callback = new URL(done.url);
    assert.equal(callback.origin + callback.pathname, REDIRECT);
    assert.equal(callback.searchParams.get('error'), 'invalid_scope');
    assert.equal(callback.searchParams.get('state'), 'state-1');
  });

  it('takes a confidential app’s secret in the form too (client_secret_post), and advertises no JWT method', async () => {
    assert.deepEqual([...(as.token_endpoint_auth_methods_supported ?? [])].sort(), [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    const app = await registerApp(t, OTHER, { name: 'Posting app' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const posting = { ...app, auth: oauth.ClientSecretPost(app.secret ?? '') };
    const tokens = await exchange(as, posting, callback, verifier);
    assert.equal((await get('/public/locks', tokens.access_token)).status, 200);
  });

  it('sends access_denied when the owner denies', async () => {
    const app = await registerApp(t, OTHER, { name: 'Denied app' });
    const verifier = oauth.generateRandomCodeVerifier();
    const page = await follow(t, browser, await authorizationUrl(as, app, { scope: 'locks:read', verifier }));
    assert.match(page.text, /Denied app/);
    const { callback } = await authorize(
      t,
      browser,
      as,
      app,
      { scope: 'locks:read', verifier },
      { decision: 'deny' },
    );
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), 'state-1');
  });

  it('remembers a consent, and a withdrawn one ends every token of it at once', async () => {
    const app = await registerApp(t, OTHER, { name: 'Remembered' });
    const first = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, first.callback, first.verifier);
    // The second time, no page: straight back to the app.
    const verifier = oauth.generateRandomCodeVerifier();
    const again = await follow(
      t,
      browser,
      await authorizationUrl(as, app, { scope: 'locks:read', verifier }),
    );
    assert.ok(again.url.startsWith(REDIRECT), again.url);
    const second = await exchange(as, app, new URL(again.url), verifier);

    const owner = await t.server.store.accounts.findByEmail(OWNER);
    await t.server.lockcloud.oauthConsents.withdraw(
      owner?.id ?? '',
      app.app.id,
      sessionActor(owner?.id ?? ''),
    );
    assert.equal((await get('/public/locks', tokens.access_token)).status, 401);
    assert.equal((await get('/public/locks', second.access_token)).status, 401);
    assert.equal(await oauthError(refresh(as, app, second.refresh_token ?? '')), 'invalid_grant');
  });

  it('revokes a token through RFC 7009, and a deleted app’s tokens with it', async () => {
    const app = await registerApp(t, OTHER, { name: 'Revoked' });
    const first = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, first.callback, first.verifier);
    await revoke(as, app, tokens.access_token);
    assert.equal((await get('/public/locks', tokens.access_token)).status, 401);
    // RFC 7009 2.1: the refresh token issued with it goes too.
    assert.equal(await oauthError(refresh(as, app, tokens.refresh_token ?? '')), 'invalid_grant');
    await revoke(as, app, 'lco_never-issued');
    // The consent stays: the next authorization is answered without a page.
    const verifier = oauth.generateRandomCodeVerifier();
    const again = await follow(
      t,
      browser,
      await authorizationUrl(as, app, { scope: 'locks:read', verifier }),
    );
    const fresh = await exchange(as, app, new URL(again.url), verifier);
    assert.equal((await get('/public/locks', fresh.access_token)).status, 200);
    await revoke(as, app, fresh.refresh_token ?? '');
    assert.equal(
      (await get('/public/locks', fresh.access_token)).status,
      401,
      'a refresh token takes its access tokens',
    );
    const last = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const kept = await exchange(as, app, last.callback, last.verifier);

    const other = await t.server.store.accounts.findByEmail(OTHER);
    await t.server.lockcloud.oauthApps.delete(other?.id ?? '', app.app.id);
    assert.equal((await get('/public/locks', kept.access_token)).status, 401);
    assert.equal(await oauthError(refresh(as, app, kept.refresh_token ?? '')), 'invalid_client');
  });

  it('refuses a confidential app with a wrong secret (invalid_client)', async () => {
    const app = await registerApp(t, OTHER, { name: 'Wrong secret' });
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' });
    const wrong = { ...app, auth: oauth.ClientSecretBasic('lcs_not-the-secret') };
    assert.equal(await oauthError(exchange(as, wrong, callback, verifier)), 'invalid_client');
  });

  it('sends a visitor without a session to log in, and back to the consent page', async () => {
    const app = await registerApp(t, OTHER, { name: 'Login first' });
    const fresh = new FormClient(t);
    const verifier = oauth.generateRandomCodeVerifier();
    const page = await follow(t, fresh, await authorizationUrl(as, app, { scope: 'locks:read', verifier }));
    assert.match(page.url, /\/dashboard\/login\?next=%2Fdashboard%2Foauth%2Fconsent%2F/);
    const next = decodeURIComponent(new URL(page.url).searchParams.get('next') ?? '');
    const login = await fresh.post('/dashboard/login', { email: OWNER, password: 'owner-password', next });
    assert.equal(login.res.headers.get('location'), next);
    const consent = await fresh.get(next);
    assert.equal(consent.status, 200);
    assert.match(consent.text, /Login first/);
  });
});
