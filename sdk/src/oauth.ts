/**
 * The app's side of lockcloud's OAuth 2.0 authorization server (docs/oauth.md): a PKCE pair, the
 * authorization URL to send the owner to, and the calls to the token and revocation endpoints
 * (`application/x-www-form-urlencoded`, `client_secret_basic` when a secret is given). The platform's
 * fetch and Web Crypto only, so it runs in Node and in a browser alike.
 */
import { type ErrorDetails, LockcloudError } from './errors.js';
import { Http } from './http.js';
import type { ApiKeyScope } from './types-keys.js';

/**
 * A scope an app may ask for: an API key's, or `offline_access` (accepted; it changes nothing, a
 * refresh token is always issued).
 *
 * @example
 * const scopes: OAuthScope[] = ['locks:read', 'locks:operate'];
 */
export type OAuthScope = ApiKeyScope | 'offline_access';

/**
 * A PKCE pair (RFC 7636): keep `verifier` for the code exchange, send `challenge` in the
 * authorization URL.
 *
 * @example
 * const { verifier, challenge }: PkcePair = await pkcePair();
 */
export interface PkcePair {
  /** 43 characters of base64url from 32 random bytes. */
  readonly verifier: string;
  /** BASE64URL(SHA-256(verifier)), sent with `code_challenge_method=S256`. */
  readonly challenge: string;
}

/**
 * What every call to the token or revocation endpoint takes: the server, the app, and how to send.
 *
 * @example
 * const app: OAuthClientOptions = { baseUrl: 'https://locks.example.com', clientId: 'lca_…', clientSecret: process.env.LOCKCLOUD_CLIENT_SECRET };
 */
export interface OAuthClientOptions {
  /** The server's base URL, as for {@link LockcloudClient} (the endpoints are under `/oauth`). */
  readonly baseUrl: string;
  /** The app's client id (`lca_…`), from the dashboard's Apps page. */
  readonly clientId: string;
  /** A confidential app's secret (`lcs_…`), sent as HTTP Basic; left out for a public app. */
  readonly clientSecret?: string | undefined;
  /** A fetch to use instead of the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** How long the call may take (default 30 000 ms); then `RequestTimeoutError`. */
  readonly timeoutMs?: number | undefined;
  /** Aborts the call with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The parameters of {@link authorizationUrl}.
 *
 * @example
 * const options: AuthorizationUrlOptions = { baseUrl, clientId, redirectUri: 'https://app.example.com/cb', scopes: ['locks:read'], state, codeChallenge: challenge };
 */
export interface AuthorizationUrlOptions {
  readonly baseUrl: string;
  readonly clientId: string;
  /** One of the app's registered redirect URIs, character for character. */
  readonly redirectUri: string;
  /** What the app asks for; the owner may grant less (the token's `scope` says what). */
  readonly scopes: readonly OAuthScope[];
  /** An unguessable value the app keeps and checks on the callback (CSRF). */
  readonly state: string;
  /** {@link PkcePair.challenge}. */
  readonly codeChallenge: string;
}

/**
 * The parameters of {@link exchangeCode}.
 *
 * @example
 * const options: ExchangeCodeOptions = { baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier: verifier };
 */
export interface ExchangeCodeOptions extends OAuthClientOptions {
  /** The callback's `code`: single-use, valid 60 seconds. */
  readonly code: string;
  /** The redirect URI of the authorization request. */
  readonly redirectUri: string;
  /** {@link PkcePair.verifier} of the authorization request. */
  readonly codeVerifier: string;
}

/**
 * The parameters of {@link refreshToken}.
 *
 * @example
 * const options: RefreshTokenOptions = { baseUrl, clientId, clientSecret, refreshToken: stored };
 */
export interface RefreshTokenOptions extends OAuthClientOptions {
  /** The latest refresh token (`lcr_…`): each is spent by its use, and a spent one ends the family. */
  readonly refreshToken: string;
  /** Fewer scopes than granted, for the new access token; left out: all of them. */
  readonly scopes?: readonly OAuthScope[] | undefined;
}

/**
 * The parameters of {@link revokeToken}.
 *
 * @example
 * const options: RevokeTokenOptions = { baseUrl, clientId, clientSecret, token: tokens.refresh_token };
 */
export interface RevokeTokenOptions extends OAuthClientOptions {
  /** An access token (`lco_…`) or a refresh token (`lcr_…`) issued to this app. */
  readonly token: string;
  /** Which of the two it is, a hint the server may use. */
  readonly tokenTypeHint?: 'access_token' | 'refresh_token' | undefined;
}

/**
 * The token endpoint's answer (RFC 6749 section 5.1).
 *
 * @example
 * const tokens: OAuthTokens = await exchangeCode({ baseUrl, clientId, code, redirectUri, codeVerifier });
 * const client = new LockcloudClient({ baseUrl, accessToken: tokens.access_token });
 */
export interface OAuthTokens {
  /** `lco_…`, sent as `Authorization: Bearer <token>` (the SDK's `accessToken` option). */
  readonly access_token: string;
  readonly token_type: string;
  /** Seconds the access token lives: 3600. */
  readonly expires_in: number;
  /** `lcr_…`, for {@link refreshToken}; a new one comes with each refresh. */
  readonly refresh_token: string;
  /** The scopes granted, space-separated: what the owner picked, maybe less than asked. */
  readonly scope: string;
}

/**
 * An error answer of the token or revocation endpoint (RFC 6749 section 5.2): `error` is its code
 * (`invalid_grant`: a wrong verifier, a code expired or used, a refresh token spent or revoked;
 * `invalid_client`: a wrong secret or a deleted app; `invalid_request`, ...), also as `code`;
 * `errorDescription` its explanation. A {@link LockcloudError}, with `status` and `requestId`.
 *
 * @example
 * try {
 *   await refreshToken({ baseUrl, clientId, clientSecret, refreshToken: stored });
 * } catch (err) {
 *   if (err instanceof OAuthError && err.error === 'invalid_grant') askTheOwnerAgain();
 *   else throw err;
 * }
 */
export class OAuthError extends LockcloudError {
  declare readonly code: string;
  /** The RFC 6749 `error` code; `server_error` when the answer had none. */
  readonly error: string;
  /** The answer's `error_description`, when given. */
  readonly errorDescription: string | undefined;
  constructor(details: ErrorDetails) {
    const body = details.body as { error?: unknown; error_description?: unknown } | null;
    const error = typeof body?.error === 'string' ? body.error : 'server_error';
    const description = typeof body?.error_description === 'string' ? body.error_description : undefined;
    super(
      error,
      details,
      `lockcloud's OAuth server answered ${details.status} ${error}${description === undefined ? '' : `: ${description}`}`,
    );
    this.error = error;
    this.errorDescription = description;
  }
}

/** Bytes as base64, with btoa: Node and browsers alike. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Bytes as base64url without padding (RFC 4648 section 5). */
const base64url = (bytes: Uint8Array): string =>
  base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * A new PKCE pair (RFC 7636, S256) from Web Crypto: a verifier of 32 random bytes and its challenge.
 *
 * @example
 * const { verifier, challenge } = await pkcePair();
 * // keep verifier (in the session) for exchangeCode; put challenge in the authorization URL
 */
export async function pkcePair(): Promise<PkcePair> {
  const verifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** The OAuth endpoints of the server at `baseUrl` (a TypeError for a bad base URL, as the clients). */
function endpoint(baseUrl: string, path: string): string {
  return `${new Http({ baseUrl }, oauthErrorFrom).baseUrl}/oauth${path}`;
}

/**
 * Where to send the owner's browser: `/oauth/auth` with the code flow's parameters and PKCE S256.
 * The owner signs in to the dashboard if need be, picks scopes and locks, and is sent back to
 * `redirectUri` with `code` and `state` (or `error=access_denied` when they deny).
 *
 * @example
 * const { verifier, challenge } = await pkcePair();
 * const state = crypto.randomUUID();
 * const url = authorizationUrl({ baseUrl, clientId, redirectUri, scopes: ['locks:read'], state, codeChallenge: challenge });
 */
export function authorizationUrl(options: AuthorizationUrlOptions): string {
  for (const name of ['clientId', 'redirectUri', 'state', 'codeChallenge'] as const)
    if (typeof options[name] !== 'string' || options[name] === '') throw new TypeError(`${name} is required`);
  if (!Array.isArray(options.scopes) || options.scopes.length === 0)
    throw new TypeError('scopes: ask for at least one');
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scopes.join(' '),
    state: options.state,
    code_challenge: options.codeChallenge,
    code_challenge_method: 'S256',
  });
  return `${endpoint(options.baseUrl, '/auth')}?${params}`;
}

/** The error class of an answer of the OAuth endpoints. */
function oauthErrorFrom(details: ErrorDetails): OAuthError {
  return new OAuthError(details);
}

/** One POST of a form to an OAuth endpoint, as the app (Basic with a secret; client_id otherwise). */
function post<T>(options: OAuthClientOptions, path: string, fields: Record<string, string>): Promise<T> {
  if (typeof options.clientId !== 'string' || options.clientId === '')
    throw new TypeError('clientId is required');
  const http = new Http(
    { baseUrl: options.baseUrl, fetch: options.fetch, timeoutMs: options.timeoutMs },
    oauthErrorFrom,
  );
  const form = new URLSearchParams(fields);
  const headers: Record<string, string> = {};
  if (options.clientSecret === undefined) form.set('client_id', options.clientId);
  else {
    // RFC 6749 section 2.3.1: each part form-encoded, then joined and base64-encoded.
    const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
    const pair = `${encode(options.clientId)}:${encode(options.clientSecret)}`;
    headers.authorization = `Basic ${base64(new TextEncoder().encode(pair))}`;
  }
  return http.request<T>({ method: 'POST', path: `/oauth${path}`, headers, form, signal: options.signal });
}

/**
 * `POST /oauth/token`, `grant_type=authorization_code`: the callback's code and the PKCE verifier
 * for an access token and a refresh token. Rejects with {@link OAuthError}: `invalid_grant` for a
 * wrong verifier, a code expired (60 s) or already used (which also revokes what it gave).
 *
 * @example
 * const callback = new URL(req.url, 'https://app.example.com');
 * if (callback.searchParams.get('state') !== session.state) throw new Error('state mismatch');
 * const tokens = await exchangeCode({
 *   baseUrl, clientId, clientSecret,
 *   code: callback.searchParams.get('code') ?? '',
 *   redirectUri, codeVerifier: session.verifier,
 * });
 */
export function exchangeCode(options: ExchangeCodeOptions): Promise<OAuthTokens> {
  return post(options, '/token', {
    grant_type: 'authorization_code',
    code: options.code,
    redirect_uri: options.redirectUri,
    code_verifier: options.codeVerifier,
  });
}

/**
 * `POST /oauth/token`, `grant_type=refresh_token`: a new access token and a new refresh token (keep
 * it: the one sent is spent, and sending it again revokes every token of the authorization).
 * Rejects with {@link OAuthError} `invalid_grant` when the refresh token is spent, revoked or expired,
 * or the owner withdrew the authorization: ask the owner again.
 *
 * @example
 * tokens = await refreshToken({ baseUrl, clientId, clientSecret, refreshToken: tokens.refresh_token });
 */
export function refreshToken(options: RefreshTokenOptions): Promise<OAuthTokens> {
  return post(options, '/token', {
    grant_type: 'refresh_token',
    refresh_token: options.refreshToken,
    ...(options.scopes === undefined ? {} : { scope: options.scopes.join(' ') }),
  });
}

/**
 * `POST /oauth/token/revocation` (RFC 7009): ends the token; an access token takes its refresh
 * token with it and the other way round. Resolves also for a token unknown or already ended.
 *
 * @example
 * await revokeToken({ baseUrl, clientId, clientSecret, token: tokens.refresh_token }); // the user signed out
 */
export async function revokeToken(options: RevokeTokenOptions): Promise<void> {
  await post<unknown>(options, '/token/revocation', {
    token: options.token,
    ...(options.tokenTypeHint === undefined ? {} : { token_type_hint: options.tokenTypeHint }),
  });
}
