/**
 * Third-party apps (issue 24, docs/oauth.md): an account registers an app, and owners authorize it
 * through OAuth 2.0 to act on some of their locks with some scopes. Pure rules here: the shapes,
 * what a registration may say, and how a consent's scopes and locks become a token's limits. The
 * protocol itself (codes, PKCE, tokens) is oidc-provider's, under src/http/oauth/.
 */
import { checkFields, DomainError } from './errors.ts';
import { type KeyLimits, MAX_KEY_LOCKS, SCOPES, type Scope } from './scope.ts';

/**
 * Every secret the authorization server hands out starts with its kind, so a leaked string is
 * recognised at a glance (and by secret scanners), and an Authorization header tells at once
 * whether it holds an access token or an API key.
 */
export const CLIENT_ID_PREFIX = 'lca_';
export const CLIENT_SECRET_PREFIX = 'lcs_';
export const ACCESS_TOKEN_PREFIX = 'lco_';
export const REFRESH_TOKEN_PREFIX = 'lcr_';

/**
 * confidential: a server-side app that keeps a secret (and still uses PKCE); public: a native or
 * single-page app that cannot keep one, and proves itself with PKCE alone.
 */
export type AppKind = 'confidential' | 'public';
export const APP_KINDS: readonly AppKind[] = ['confidential', 'public'];

export interface OAuthApp {
  /** The client id (lca_...): public, shown to anyone who authorizes the app. */
  readonly id: string;
  /** The account that registered the app (its developer), which alone may edit or delete it. */
  readonly accountId: string;
  readonly name: string;
  /** Matched exactly, character for character, against an authorization request's redirect_uri. */
  readonly redirectUris: readonly string[];
  readonly kind: AppKind;
  /** The display prefix of its secret (confidential apps); null for public apps. */
  readonly secretPrefix: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** An owner's authorization of an app: remembered, so the next request with no more asks nothing. */
export interface OAuthConsent {
  readonly accountId: string;
  readonly appId: string;
  /** The scopes the owner granted, in SCOPES order. */
  readonly scopes: readonly Scope[];
  /** The locks the app reaches; null: every lock of the account, also those added later. */
  readonly lockIds: readonly string[] | null;
  /** oidc-provider's grant: every code and token issued under this consent carries its id. */
  readonly grantId: string;
  readonly grantedAt: number;
  /** When a token of this consent was last used (written at most once a minute); null: never. */
  readonly lastUsedAt: number | null;
}

export const MAX_APP_NAME = 80;
export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2000;

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });

/** What a registration or an edit says, unchecked (the API's and the form's names). */
export interface AppInput {
  readonly name?: unknown;
  readonly redirect_uris?: unknown;
  readonly kind?: unknown;
}

export interface CheckedApp {
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly kind: AppKind;
}

// C0, DEL and C1 controls, and (in a URI) whitespace: what a name or an address may not hold.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f-\u009f]/;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A redirect URI an app may register (RFC 6749 3.1.2, RFC 8252 for native apps, OAuth 2.1): an
 * absolute URI without a fragment; https, or http only to this machine's loopback (a native app's
 * local listener or a developer's), or a private-use scheme with a dot in it (com.example.app:/cb,
 * RFC 8252 7.1), which only a public (native) app may use. Anything else would let a code travel
 * in clear or to a page anyone can serve.
 */
export function redirectUriProblem(uri: string, kind: AppKind): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (CONTROL_OR_SPACE.test(uri)) return 'holds a space or a control character';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'has a fragment (#), which a redirect URI may not';
  if (url.protocol === 'https:') return url.hostname === '' ? 'has no host' : undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? undefined
      : 'uses http to a host other than loopback; use https';
  if (!/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol))
    return 'uses a scheme that is neither https nor a private-use one like com.example.app:';
  if (kind !== 'public') return 'uses a private-use scheme, which only a public (native) app may';
  return undefined;
}

const nameOf = (value: unknown): string => {
  if (typeof value !== 'string') throw invalid('name', 'is required');
  const name = value.trim();
  if (name === '' || name.length > MAX_APP_NAME)
    throw invalid('name', `must be 1 to ${MAX_APP_NAME} characters`);
  if (CONTROL.test(name)) throw invalid('name', 'holds a control character');
  return name;
};

const kindOf = (value: unknown): AppKind => {
  if (value === undefined) return 'confidential';
  if (APP_KINDS.includes(value as AppKind)) return value as AppKind;
  throw invalid('kind', 'must be confidential or public');
};

const urisOf = (value: unknown, kind: AppKind): readonly string[] => {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS)
    throw invalid('redirect_uris', `must be a list of 1 to ${MAX_REDIRECT_URIS} URIs`);
  const seen = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string') throw invalid('redirect_uris', 'each must be a string');
    const problem = redirectUriProblem(item, kind);
    if (problem !== undefined)
      throw invalid('redirect_uris', `${JSON.stringify(item.slice(0, 60))} ${problem}`);
    if (seen.has(item)) throw invalid('redirect_uris', `${JSON.stringify(item.slice(0, 60))} is given twice`);
    seen.add(item);
  }
  return value as string[];
};

/** Checks a registration; throws INVALID_INPUT naming every wrong field. */
export function checkAppInput(input: AppInput): CheckedApp {
  const kind = kindOf(input.kind);
  const [name, redirectUris] = checkFields(
    () => nameOf(input.name),
    () => urisOf(input.redirect_uris, kind),
  );
  return { name, redirectUris, kind };
}

/** The scopes an authorization request asks for, as the protocol spells them: space-separated. */
export function requestedScopes(scope: string | undefined): readonly Scope[] {
  const asked = new Set((scope ?? '').split(' ').filter((s) => s !== ''));
  return SCOPES.filter((s) => asked.has(s));
}

/**
 * What the owner picked on the consent page: a subset of the scopes asked for (at least one), and
 * either every lock or some of the owner's locks. Throws INVALID_INPUT.
 */
export function checkConsentChoice(
  asked: readonly Scope[],
  picked: readonly string[],
  lockIds: readonly string[] | null,
  ownLocks: ReadonlySet<string>,
): { scopes: readonly Scope[]; lockIds: readonly string[] | null } {
  const scopes = asked.filter((s) => picked.includes(s));
  if (scopes.length === 0) throw invalid('scopes', 'pick at least one of the permissions the app asks for');
  if (lockIds === null) return { scopes, lockIds: null };
  const locks = [...new Set(lockIds)];
  if (locks.length === 0 || locks.length > MAX_KEY_LOCKS)
    throw invalid('lock_ids', `pick 1 to ${MAX_KEY_LOCKS} locks, or every lock`);
  for (const id of locks) if (!ownLocks.has(id)) throw invalid('lock_ids', `${id} is not one of your locks`);
  return { scopes, lockIds: locks };
}

/**
 * A token's limits: the scopes it was issued with (within the consent's), the consent's locks as
 * they are now (an owner who narrows them narrows every live token), and the token's expiry.
 */
export function tokenLimits(
  tokenScopes: readonly Scope[],
  consent: Pick<OAuthConsent, 'lockIds'>,
  expiresAt: number,
): KeyLimits {
  return { scopes: tokenScopes, lockIds: consent.lockIds, expiresAt };
}

/** The scopes, in words, for the consent page and the list of authorized apps. */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  'locks:read': 'See the locks you choose: their names, state, battery and whether they are online',
  'locks:operate': 'Lock, unlock and sync the locks you choose',
  'events:read': 'Read the activity of the locks you choose: who opened them, when and how',
  'webhooks:manage': 'Set where your account sends notifications of lock changes',
  'keys:manage': 'Make and delete API keys of your account, within what you grant here',
};
