/**
 * The SDK's OAuth helpers (sdk/src/oauth.ts) and its client on an access token, against a real
 * server: an app registered through the use case, the owner's consent given by a signed-in browser
 * (test/support/oauth.ts), everything the app does with the SDK alone. The same flow with a
 * reference client library is test/http/oauth/flow.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  authorizationUrl,
  exchangeCode,
  LockcloudClient,
  LockcloudError,
  OAuthError,
  type OAuthScope,
  type OAuthTokens,
  pkcePair,
  refreshToken,
  revokeToken,
  UnauthorizedError,
} from '../../sdk/src/index.ts';
import type { FormClient } from '../dashboard/support.ts';
import { answerConsent, follow, REDIRECT, registerApp, signedIn } from '../support/oauth.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OWNER,
  startServer,
  type TestServer,
} from '../support/server.ts';

describe('sdk: OAuth', () => {
  let t: TestServer;
  let browser: FormClient;
  before(async () => {
    t = await startServer();
    browser = await signedIn(t, OWNER, 'owner-password');
  });
  after(() => t.close());

  /** An app of the other account (a developer's), registered as the dashboard's Apps page does. */
  async function register(name: string, kind: 'confidential' | 'public' = 'confidential') {
    const { app, secret } = await registerApp(t, OTHER, { name, kind });
    return {
      baseUrl: t.url,
      clientId: app.id,
      ...(secret === null ? {} : { clientSecret: secret }),
    };
  }

  /** The owner's browser through the authorization URL and the consent page, to the app's callback. */
  async function consent(
    clientId: string,
    scopes: readonly OAuthScope[],
    fields: Record<string, string | readonly string[]> = { decision: 'allow', scope: scopes, locks: 'all' },
  ): Promise<{ callback: URL; verifier: string; state: string }> {
    const { verifier, challenge } = await pkcePair();
    const state = crypto.randomUUID();
    const url = authorizationUrl({
      baseUrl: t.url,
      clientId,
      redirectUri: REDIRECT,
      scopes,
      state,
      codeChallenge: challenge,
    });
    const page = await follow(t, browser, url);
    const done = page.url.startsWith(t.url) ? await answerConsent(t, browser, page.url, fields) : page;
    assert.ok(done.url.startsWith(REDIRECT), `ended at ${done.url}: ${done.status}`);
    return { callback: new URL(done.url), verifier, state };
  }

  async function tokensFor(
    app: Awaited<ReturnType<typeof register>>,
    scopes: readonly OAuthScope[],
  ): Promise<OAuthTokens> {
    const { callback, verifier } = await consent(app.clientId, scopes);
    return exchangeCode({
      ...app,
      code: callback.searchParams.get('code') ?? '',
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
  }

  it('pkcePair: a 43-character verifier and its S256 challenge, new each time', async () => {
    const a = await pkcePair();
    const b = await pkcePair();
    assert.match(a.verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(a.challenge, createHash('sha256').update(a.verifier).digest('base64url'));
    assert.notEqual(a.verifier, b.verifier);
  });

  it('authorizationUrl: /oauth/auth with the code flow, the scopes space-separated, S256', () => {
    const url = new URL(
      authorizationUrl({
        baseUrl: 'https://locks.example.com/',
        clientId: 'lca_x',
        redirectUri: 'com.example.app:/cb',
        scopes: ['locks:read', 'locks:operate'],
        state: 's t',
        codeChallenge: 'c',
      }),
    );
    assert.equal(url.origin + url.pathname, 'https://locks.example.com/oauth/auth');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      response_type: 'code',
      client_id: 'lca_x',
      redirect_uri: 'com.example.app:/cb',
      scope: 'locks:read locks:operate',
      state: 's t',
      code_challenge: 'c',
      code_challenge_method: 'S256',
    });
    assert.throws(
      () =>
        authorizationUrl({
          baseUrl: 'x',
          clientId: 'a',
          redirectUri: 'b',
          scopes: [],
          state: 's',
          codeChallenge: 'c',
        }),
      TypeError,
    );
  });

  it('the whole flow: consent, exchange, the locks through the client, refresh, revoke', async () => {
    const app = await register('SDK app');
    const { callback, verifier, state } = await consent(app.clientId, ['locks:read', 'events:read']);
    assert.equal(callback.searchParams.get('state'), state);
    const tokens = await exchangeCode({
      ...app,
      code: callback.searchParams.get('code') ?? '',
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    assert.match(tokens.access_token, /^lco_/);
    assert.match(tokens.refresh_token, /^lcr_/);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'locks:read events:read');

    // The client takes the token where it takes a key: v3, /ext, the event log.
    const client = new LockcloudClient({ baseUrl: t.url, accessToken: tokens.access_token });
    assert.deepEqual((await client.listLocks()).map((l) => l.device_id).sort(), [LOCK_A, LOCK_B]);
    assert.equal((await client.getLock(LOCK_B)).battery, 55);
    assert.equal((await client.locks.list()).locks.length, 2);
    assert.ok(Array.isArray((await client.events.page({ limit: 5 })).events));
    // Outside its scopes: locks:operate was not granted.
    await assert.rejects(client.unlock(LOCK_A), (err: LockcloudError) => err.status === 403);

    const next = await refreshToken({ ...app, refreshToken: tokens.refresh_token });
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    assert.notEqual(next.access_token, tokens.access_token);
    assert.equal(next.scope, 'locks:read events:read');
    const renewed = new LockcloudClient({ baseUrl: t.url, accessToken: next.access_token });
    assert.equal((await renewed.listLocks()).length, 2);

    await revokeToken({ ...app, token: next.access_token, tokenTypeHint: 'access_token' });
    await assert.rejects(renewed.listLocks(), UnauthorizedError);
    // RFC 7009 2.1: its refresh token went with it.
    await assert.rejects(refreshToken({ ...app, refreshToken: next.refresh_token }), {
      name: 'OAuthError',
      error: 'invalid_grant',
    });
    // An unknown token is no error (RFC 7009 2.2).
    await revokeToken({ ...app, token: 'lco_never-issued' });
  });

  it('a public app: PKCE alone, no secret; the token also in the partner endpoint’s body', async () => {
    const app = await register('SDK phone app', 'public');
    assert.equal('clientSecret' in app, false);
    const tokens = await tokensFor(app, ['locks:read', 'locks:operate']);
    const client = new LockcloudClient({ baseUrl: t.url, accessToken: tokens.access_token });
    assert.equal((await client.listLocks()).length, 2);
    // The partner endpoint takes the token in its body, where it takes a key.
    assert.equal(
      typeof (await client.partnerAutomation({ command: 'lock', deviceId: LOCK_A })).task_id,
      'string',
    );
    await revokeToken({ ...app, token: tokens.refresh_token });
    await assert.rejects(client.listLocks(), UnauthorizedError);
  });

  it('refreshAccessToken: a refused token is refreshed once, shared by concurrent calls, then used', async () => {
    const app = await register('Long-lived app');
    let tokens = await tokensFor(app, ['locks:read', 'events:read']);
    let refreshes = 0;
    const client = new LockcloudClient({
      baseUrl: t.url,
      accessToken: tokens.access_token,
      refreshAccessToken: async () => {
        refreshes++;
        tokens = await refreshToken({ ...app, refreshToken: tokens.refresh_token });
        return tokens.access_token;
      },
    });
    assert.equal((await client.listLocks()).length, 2);
    assert.equal(refreshes, 0);
    await advanceClock(t, 3601); // past the access token's hour, well within the refresh token's 30 days
    const [v3, ext, events] = await Promise.all([
      client.listLocks(),
      client.locks.list(),
      client.events.page({ limit: 1 }),
    ]);
    assert.equal(v3.length, 2);
    assert.equal(ext.locks.length, 2);
    assert.ok(Array.isArray(events.events));
    assert.equal(refreshes, 1, 'one refresh for the three refused calls');
    assert.equal((await client.getLock(LOCK_A)).locked, true);
    assert.equal(refreshes, 1, 'the new token is kept');

    // A refresher that fails rejects the call with its error; nothing is retried past it.
    await revokeToken({ ...app, token: tokens.refresh_token });
    await assert.rejects(client.listLocks(), { name: 'OAuthError', error: 'invalid_grant' });
    assert.equal(refreshes, 2);
  });

  it('without refreshAccessToken an expired token is UnauthorizedError', async () => {
    const app = await register('Short-lived app');
    const tokens = await tokensFor(app, ['locks:read']);
    const client = new LockcloudClient({ baseUrl: t.url, accessToken: tokens.access_token });
    await advanceClock(t, 3601);
    await assert.rejects(client.listLocks(), UnauthorizedError);
  });

  it('OAuthError: the RFC 6749 error and its description, a LockcloudError with status', async () => {
    const app = await register('Careless app');
    const { callback } = await consent(app.clientId, ['locks:read']);
    const code = callback.searchParams.get('code') ?? '';
    const wrong = await exchangeCode({
      ...app,
      code,
      redirectUri: REDIRECT,
      codeVerifier: (await pkcePair()).verifier,
    }).catch((err: unknown) => err);
    assert.ok(wrong instanceof OAuthError);
    assert.ok(wrong instanceof LockcloudError);
    assert.equal(wrong.error, 'invalid_grant');
    assert.equal(wrong.code, 'invalid_grant');
    assert.equal(wrong.status, 400);
    assert.equal(typeof wrong.errorDescription, 'string');
    assert.match(wrong.message, /^lockcloud's OAuth server answered 400 invalid_grant/);

    // A wrong secret: invalid_client, 401.
    const second = await consent(app.clientId, ['locks:read']);
    await assert.rejects(
      exchangeCode({
        ...app,
        clientSecret: 'lcs_not-the-secret',
        code: second.callback.searchParams.get('code') ?? '',
        redirectUri: REDIRECT,
        codeVerifier: second.verifier,
      }),
      { name: 'OAuthError', error: 'invalid_client', status: 401 },
    );

    // A spent refresh token presented again: invalid_grant, and the whole family is revoked.
    const tokens = await tokensFor(app, ['locks:read']);
    const next = await refreshToken({ ...app, refreshToken: tokens.refresh_token });
    await assert.rejects(refreshToken({ ...app, refreshToken: tokens.refresh_token }), {
      error: 'invalid_grant',
    });
    await assert.rejects(refreshToken({ ...app, refreshToken: next.refresh_token }), {
      error: 'invalid_grant',
    });
    const client = new LockcloudClient({ baseUrl: t.url, accessToken: next.access_token });
    await assert.rejects(client.listLocks(), UnauthorizedError);
  });

  it('the owner denying sends access_denied to the callback', async () => {
    const app = await register('Denied SDK app');
    const { callback, state } = await consent(app.clientId, ['locks:read'], { decision: 'deny' });
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.get('code'), null);
  });

  it('the options: one credential, checked', () => {
    const baseUrl = t.url;
    assert.throws(
      () => new LockcloudClient({ baseUrl, apiKey: 'k', accessToken: 't' } as never),
      /apiKey or accessToken, not both/,
    );
    assert.throws(() => new LockcloudClient({ baseUrl, accessToken: '' }), TypeError);
    assert.throws(
      () => new LockcloudClient({ baseUrl, apiKey: 'k', refreshAccessToken: async () => 't' } as never),
      /refreshAccessToken goes with accessToken/,
    );
  });
});
