/**
 * lockcloud's OAuth 2.0 authorization server (issue 24, docs/oauth.md), built on oidc-provider (an
 * OpenID Certified implementation) rather than written by hand. What is ours is the configuration:
 *
 * - the authorization code flow only, PKCE with S256 required of every client (no implicit, no
 *   password grant), redirect URIs matched exactly, codes single-use for 60 seconds;
 * - the scopes are lockcloud's (domain/scope.ts), for one resource, the API; access tokens are
 *   opaque (lco_...), an hour long; refresh tokens (lcr_...) rotate at every use, and presenting a
 *   used one revokes every token of its grant (oidc-provider's reuse detection);
 * - every login and consent goes through the dashboard (routes/oauth-consent.ts), where the owner
 *   picks the scopes and the locks; oidc-provider's own browser session decides nothing;
 * - every record is kept by the hash of its id through app/oauth/records.ts, and an app's secret
 *   only as a hash, compared in constant time;
 * - its signing and cookie keys derive from the server key, so every process of one database
 *   agrees without sharing anything else.
 */
import { createPrivateKey, hkdfSync, type JsonWebKey } from 'node:crypto';
import type {
  Adapter,
  AdapterPayload,
  ClientMetadata,
  Configuration,
  KoaContextWithOIDC,
  Provider as ProviderType,
} from 'oidc-provider';
import type { OAuthApps } from '../../app/oauth/apps.ts';
import type { OAuthRecords } from '../../app/oauth/records.ts';
import { ACCESS_TOKEN_PREFIX, type OAuthApp, REFRESH_TOKEN_PREFIX } from '../../domain/oauth-app.ts';
import { SCOPES } from '../../domain/scope.ts';
import { escapeHtml } from '../dashboard/html.ts';

/** The resource every token is for (RFC 8707): lockcloud's API, v3 and /ext alike. */
export const API_RESOURCE = 'urn:lockcloud:api';
/** Where the dashboard asks the owner (the interaction cookie is scoped to this path). */
export const CONSENT_PATH = '/dashboard/oauth/consent/';

export const TTL_SECONDS = {
  AccessToken: 60 * 60,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Interaction: 10 * 60,
  Session: 10 * 60,
  // A grant lives as long as its consent: withdrawing it revokes the grant at once. A year bounds
  // one that is never used; a remembered consent is asked again without a page.
  Grant: 365 * 24 * 60 * 60,
} as const;

export interface ProviderOptions {
  readonly issuer: string;
  /** 32 bytes derived from the server key for OAuth alone (main.ts). */
  readonly keyMaterial: Uint8Array;
  readonly records: OAuthRecords;
  readonly apps: Pick<OAuthApps, 'clientFor' | 'secretMatches'>;
  /** Whether X-Forwarded-* is to be believed (the server's --trust-proxy). */
  readonly behindProxy: boolean;
  /** Told of every error the provider answers 500 for (our bug, or the store's). */
  readonly onServerError: (error: unknown) => void;
}

const derive = (material: Uint8Array, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', material, new Uint8Array(0), `lockcloud oauth ${purpose}`, 32));

/** An Ed25519 key from 32 derived bytes: PKCS #8 of the seed (RFC 8410). */
function signingKey(material: Uint8Array): JsonWebKey {
  const seed = derive(material, 'signing key');
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return {
    ...jwk,
    use: 'sig',
    alg: 'EdDSA',
    kid: derive(material, 'key id').toString('base64url').slice(0, 16),
  };
}

/** A registered app as oidc-provider's client metadata. */
export function clientMetadata(app: OAuthApp, secretHash: string | undefined): ClientMetadata {
  const native = app.redirectUris.some((uri) => !/^https?:/.test(uri));
  return {
    client_id: app.id,
    client_name: app.name,
    redirect_uris: [...app.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    application_type: native ? 'native' : 'web',
    ...(app.kind === 'public' || secretHash === undefined
      ? { token_endpoint_auth_method: 'none' }
      : // The hash stands where oidc-provider keeps a secret; compareClientSecret hashes what is sent.
        { token_endpoint_auth_method: 'client_secret_basic', client_secret: secretHash }),
  };
}

/** oidc-provider's storage: each model's records through app/oauth/records.ts; clients are our apps. */
function adapterFor(options: ProviderOptions) {
  const { records, apps } = options;
  return class RecordsAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn = 0): Promise<void> {
      if (this.model === 'Client') throw new Error('clients are registered through the dashboard');
      await records.upsert(this.model, id, payload as Record<string, unknown>, expiresIn);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        const found = await apps.clientFor(id);
        return found && (clientMetadata(found.app, found.secretHash) as AdapterPayload);
      }
      return (await records.find(this.model, id)) as AdapterPayload | undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await records.findByUid(this.model, uid)) as AdapterPayload | undefined;
    }

    async findByUserCode(): Promise<undefined> {
      // The device flow is not offered.
      return undefined;
    }

    consume(id: string): Promise<void> {
      return records.consume(this.model, id);
    }

    destroy(id: string): Promise<void> {
      return records.destroy(this.model, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return records.revokeGrant(grantId, this.model);
    }
  };
}

/** The one page oidc-provider renders itself: an error it cannot send back to the app. */
function renderError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): void {
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title></head><body><main><h1>Authorization failed</h1><p><code>${escapeHtml(out.error)}</code>: ${escapeHtml(out.error_description ?? '')}</p><p>Go back to the app and try again.</p></main></body></html>`;
}

/**
 * Imports oidc-provider. On Node 20, which it runs on but no longer names, it prints a warning on
 * import; the warning is about support, not a fault, and is kept out of the server's log.
 */
async function importProvider(): Promise<typeof import('oidc-provider')> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('Unsupported runtime')) return;
    warn(...args);
  };
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = warn;
  }
}

export async function createProvider(options: ProviderOptions): Promise<ProviderType> {
  const { default: Provider, interactionPolicy, errors } = await importProvider();
  const { Prompt, Check } = interactionPolicy;
  // One prompt, always: the owner decides on the dashboard each time, which answers at once for a
  // consent it remembers. On the way back (a result present) there is nothing left to ask.
  const policy = [
    new Prompt(
      { name: 'consent', requestable: true },
      new Check('lockcloud_consent', 'the owner picks the scopes and the locks', (ctx) =>
        ctx.oidc.result?.consent ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    ),
  ];
  const configuration: Configuration = {
    adapter: adapterFor(options),
    clients: [],
    jwks: { keys: [signingKey(options.keyMaterial) as never] },
    cookies: { keys: [derive(options.keyMaterial, 'cookies').toString('base64url')] },
    pkce: { required: () => true },
    // A secret in the Authorization header (registered) or in the form; never a JWT signed with
    // it, which would need the secret itself, not its hash.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    scopes: ['offline_access'],
    clientDefaults: { id_token_signed_response_alg: 'EdDSA' },
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    features: {
      devInteractions: { enabled: false },
      revocation: {
        enabled: true,
        // RFC 7009 2.1: an app revokes only tokens issued to it. A confidential app is told; a
        // public one, which anyone can claim to be, is answered as for an unknown token.
        allowedPolicy: (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== API_RESOURCE) throw new Error('unknown resource');
          return {
            scope: SCOPES.join(' '),
            accessTokenFormat: 'opaque',
            accessTokenTTL: TTL_SECONDS.AccessToken,
          };
        },
      },
    },
    interactions: { policy, url: (_ctx, interaction) => `${CONSENT_PATH}${interaction.uid}` },
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId === undefined ? undefined : await ctx.oidc.provider.Grant.find(grantId);
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    // A single-page app (a public client) calls the token endpoint from its own origin.
    clientBasedCORS: (_ctx, origin, client) =>
      (client.redirectUris ?? []).some((uri) => URL.canParse(uri) && new URL(uri).origin === origin),
    ttl: { ...TTL_SECONDS },
    renderError,
  };
  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.behindProxy;
  provider.on('server_error', (_ctx: unknown, error: unknown) => options.onServerError(error));
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      // What oidc-provider's own handlers did not answer: in the RFC 6749 shape, not Koa's text
      // (Koa's would also drop every header set so far, the request id among them).
      options.onServerError(error);
      ctx.status = 500;
      ctx.body = { error: 'server_error', error_description: 'the authorization server failed; try again' };
      return;
    }
    // A path or method it has no route for: Koa's default is a bare text 404.
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.body = {
        error: 'invalid_request',
        error_description: `unrecognized route or not allowed method (${ctx.method} on ${ctx.path})`,
      };
      // Koa takes a body set for a 200.
      ctx.status = 404;
    }
    // The metadata names the scopes an app may ask for: lockcloud's (oidc-provider lists only its
    // own), and offline_access, which changes nothing (every authorization has a refresh token).
    if (ctx.oidc?.route === 'discovery' && ctx.body !== null && typeof ctx.body === 'object')
      (ctx.body as { scopes_supported?: string[] }).scopes_supported = [...SCOPES, 'offline_access'];
  });
  const { apps } = options;
  // The stored "secret" is its hash: hash what the app sends and compare the hashes in constant time.
  provider.Client.prototype.compareClientSecret = function compare(
    this: { clientSecret?: string },
    actual: string,
  ) {
    return this.clientSecret !== undefined && apps.secretMatches(this.clientSecret, actual);
  };
  // Prefixed ids: a token says what it is, and an Authorization header holding one is told from a key.
  const prefixed = (model: { prototype: { generateTokenId(): string } }, prefix: string) => {
    const generate = model.prototype.generateTokenId;
    model.prototype.generateTokenId = function prefixedId(this: unknown) {
      return `${prefix}${generate.call(this)}`;
    };
  };
  prefixed(provider.AccessToken as never, ACCESS_TOKEN_PREFIX);
  prefixed(provider.RefreshToken as never, REFRESH_TOKEN_PREFIX);
  return provider;
}
