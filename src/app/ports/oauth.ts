/**
 * The OAuth ports (issue 24): the apps accounts register, owners' consents, and the records
 * oidc-provider keeps (codes, tokens, grants, sessions, interactions). Re-exported by app/ports.ts.
 */
import type { Account } from '../../domain/account.ts';
import type { LockEvent } from '../../domain/event.ts';
import type { OAuthApp, OAuthConsent } from '../../domain/oauth-app.ts';
import type { Scope } from '../../domain/scope.ts';

export interface NewOAuthApp extends OAuthApp {
  /** The hash of a confidential app's secret (SecretHasher); null for a public app. */
  readonly secretHash: string | null;
}

export interface OAuthAppStore {
  insert(app: NewOAuthApp): Promise<void>;
  /** The app with this client id, whoever registered it (the authorization server's lookup). */
  find(id: string): Promise<OAuthApp | undefined>;
  /** The hash of a confidential app's secret; undefined for a public app or no app. */
  secretHash(id: string): Promise<string | undefined>;
  /** The apps an account registered, oldest first. */
  listForAccount(accountId: string): Promise<OAuthApp[]>;
  /** Changes name, redirect URIs and `updatedAt` of an app of the account; false: no such app. */
  update(
    accountId: string,
    id: string,
    patch: Pick<OAuthApp, 'name' | 'redirectUris' | 'updatedAt'>,
  ): Promise<boolean>;
  /** A confidential app's new secret; false: the account has no such confidential app. */
  replaceSecret(
    accountId: string,
    id: string,
    secretHash: string,
    secretPrefix: string,
    at: number,
  ): Promise<boolean>;
  /**
   * Deletes an app of the account with its consents; false: no such app. Its records (codes,
   * tokens) are revoked by the caller through OAuthRecordStore.revokeClient.
   */
  delete(accountId: string, id: string, events?: readonly LockEvent[]): Promise<boolean>;

  /** The account's consent to the app, if any. */
  findConsent(accountId: string, appId: string): Promise<OAuthConsent | undefined>;
  /** Records a consent, replacing the account's earlier one to the same app; `events` with it. */
  putConsent(consent: OAuthConsent, events?: readonly LockEvent[]): Promise<void>;
  /** The apps an account authorized, with each app; most recently granted first. */
  listConsents(accountId: string): Promise<{ consent: OAuthConsent; app: OAuthApp }[]>;
  /**
   * Withdraws a consent; answers it (its grant is revoked by the caller), or undefined. `events`
   * (of the consent withdrawn) are written in the same transaction.
   */
  deleteConsent(
    accountId: string,
    appId: string,
    events?: (gone: OAuthConsent) => readonly LockEvent[],
  ): Promise<OAuthConsent | undefined>;
  /** Every consent to the app, whoever gave it (its deletion tells each of them). */
  consentsOf(appId: string): Promise<OAuthConsent[]>;
  /** Records a use of the consent's tokens. */
  touchConsent(grantId: string, at: number): Promise<void>;
}

/** One of oidc-provider's records as stored: the id only as its hash. */
export interface OAuthRecord {
  /** The payload's JSON, without its id (`jti`), which is the secret. */
  readonly payload: string;
  readonly grantId: string | null;
  readonly uid: string | null;
  readonly accountId: string | null;
  readonly clientId: string | null;
  readonly scope: string | null;
  readonly expiresAt: number;
  readonly consumedAt: number | null;
}

/** What a request presenting an access token acts with: one indexed lookup. */
export interface BearerGrant {
  readonly account: Account;
  readonly app: Pick<OAuthApp, 'id' | 'name'>;
  readonly grantId: string;
  readonly scopes: readonly Scope[];
  readonly lockIds: readonly string[] | null;
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
}

export interface OAuthRecordStore {
  upsert(model: string, idHash: string, record: OAuthRecord): Promise<void>;
  find(model: string, idHash: string): Promise<OAuthRecord | undefined>;
  findByUid(model: string, uid: string): Promise<{ idHash: string; record: OAuthRecord } | undefined>;
  /** Marks a record used (a code, a rotated refresh token); the provider refuses it from then on. */
  consume(model: string, idHash: string, at: number): Promise<void>;
  destroy(model: string, idHash: string): Promise<void>;
  /**
   * The records of a grant: of one model (oidc-provider revokes model by model, keeping the grant
   * when an access token is revoked), or all of them, the grant itself too (a withdrawn consent).
   */
  revokeGrant(grantId: string, model?: string): Promise<void>;
  /** Every record issued to an app (its deletion). */
  revokeClient(clientId: string): Promise<void>;
  /**
   * The access token with this hash, with its consent and app, when all three exist and the
   * account is not deleted; the caller checks the expiry against its clock.
   */
  findBearer(idHash: string): Promise<BearerGrant | undefined>;
  /** Forgets records that expired before `before`; answers how many. */
  purgeExpired(before: number): Promise<number>;
}
