/**
 * Registering third-party apps (issue 24): an account's apps, their secrets shown once and kept as
 * hashes, edits, new secrets and deletion. Deleting an app ends every authorization of it at once:
 * its consents go with it and every code and token issued to it is revoked.
 */
import { displayPrefix } from '../../domain/api-key.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountEvent, SYSTEM_ACTOR } from '../../domain/event.ts';
import {
  type AppInput,
  CLIENT_ID_PREFIX,
  CLIENT_SECRET_PREFIX,
  checkAppInput,
  type OAuthApp,
} from '../../domain/oauth-app.ts';
import { sameSecret } from '../constant-time.ts';
import type { EventLog } from '../event-log.ts';
import type { Clock, OAuthAppStore, OAuthRecordStore, RandomSource, SecretHasher } from '../ports.ts';

export interface OAuthAppsDeps {
  readonly apps: OAuthAppStore;
  readonly records: Pick<OAuthRecordStore, 'revokeClient'>;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  /** Where each owner is told that an app it authorized was deleted; none: not recorded. */
  readonly eventLog?: EventLog;
}

/** 32 random bytes: as strong as the tokens the app will be issued. */
const SECRET_BYTES = 32;
/** 16 random bytes: an id need not be secret, only never repeat. */
const ID_BYTES = 16;
/** As many apps as one account registers; a developer with more runs their own server. */
export const MAX_APPS_PER_ACCOUNT = 50;

const noSuchApp = (): DomainError => new DomainError('APP_NOT_FOUND', 'no such app of this account');

export class OAuthApps {
  constructor(private readonly deps: OAuthAppsDeps) {}

  list(accountId: string): Promise<OAuthApp[]> {
    return this.deps.apps.listForAccount(accountId);
  }

  /** One of the account's apps (APP_NOT_FOUND for another's: whose it is is not told). */
  async get(accountId: string, id: string): Promise<OAuthApp> {
    const app = await this.deps.apps.find(id);
    if (!app || app.accountId !== accountId) throw noSuchApp();
    return app;
  }

  /** A new app; a confidential one's secret is answered this once. */
  async register(accountId: string, input: AppInput): Promise<{ app: OAuthApp; secret: string | null }> {
    const checked = checkAppInput(input);
    const { apps, random, clock, secrets } = this.deps;
    if ((await apps.listForAccount(accountId)).length >= MAX_APPS_PER_ACCOUNT)
      throw new DomainError('INVALID_INPUT', `an account registers at most ${MAX_APPS_PER_ACCOUNT} apps`, {
        field: 'name',
      });
    const secret =
      checked.kind === 'confidential' ? `${CLIENT_SECRET_PREFIX}${random.secret(SECRET_BYTES)}` : null;
    const now = clock.now();
    const app: OAuthApp = {
      id: `${CLIENT_ID_PREFIX}${random.secret(ID_BYTES)}`,
      accountId,
      name: checked.name,
      redirectUris: checked.redirectUris,
      kind: checked.kind,
      secretPrefix: secret === null ? null : displayPrefix(secret),
      createdAt: now,
      updatedAt: now,
    };
    await apps.insert({ ...app, secretHash: secret === null ? null : secrets.hash(secret) });
    return { app, secret };
  }

  /**
   * A new name and redirect URIs (the kind stays: a public app given a secret, or the reverse, is
   * another app). Codes already issued to a redirect URI no longer listed fail at the token
   * endpoint, which matches the redirect URI again.
   */
  async update(accountId: string, id: string, input: AppInput): Promise<OAuthApp> {
    const app = await this.get(accountId, id);
    const checked = checkAppInput({ ...input, kind: app.kind });
    const patch = {
      name: checked.name,
      redirectUris: checked.redirectUris,
      updatedAt: this.deps.clock.now(),
    };
    if (!(await this.deps.apps.update(accountId, id, patch))) throw noSuchApp();
    return { ...app, ...patch };
  }

  /** A confidential app's new secret, answered this once; the old one stops working at once. */
  async rotateSecret(accountId: string, id: string): Promise<{ app: OAuthApp; secret: string }> {
    const app = await this.get(accountId, id);
    if (app.kind !== 'confidential')
      throw new DomainError('INVALID_INPUT', 'a public app has no secret to replace', { field: 'kind' });
    const { random, secrets, clock } = this.deps;
    const secret = `${CLIENT_SECRET_PREFIX}${random.secret(SECRET_BYTES)}`;
    const now = clock.now();
    const prefix = displayPrefix(secret);
    if (!(await this.deps.apps.replaceSecret(accountId, id, secrets.hash(secret), prefix, now)))
      throw noSuchApp();
    return { app: { ...app, secretPrefix: prefix, updatedAt: now }, secret };
  }

  /** The authorization server's lookup of a client: the app, and its secret's hash if it has one. */
  async clientFor(id: string): Promise<{ app: OAuthApp; secretHash: string | undefined } | undefined> {
    const app = await this.deps.apps.find(id);
    return app && { app, secretHash: await this.deps.apps.secretHash(id) };
  }

  /** Whether a secret an app sent is the one whose hash is stored, in constant time. */
  secretMatches(storedHash: string, given: string): boolean {
    return sameSecret(this.deps.secrets.hash(given), storedHash);
  }

  /**
   * Deletes the app, its consents, and every code and token issued to it. Each owner who had
   * authorized it reads oauth_app.revoked in its log, by the system: the developer's account is
   * not the owner's to know.
   */
  async delete(accountId: string, id: string): Promise<void> {
    const app = await this.get(accountId, id);
    const consents = await this.deps.apps.consentsOf(id);
    const events = this.deps.eventLog?.stampAll(
      consents.map((c) =>
        accountEvent('oauth_app.revoked', c.accountId, SYSTEM_ACTOR, {
          app_id: id,
          app_name: app.name,
          scopes: c.scopes,
          lock_ids: c.lockIds,
          grant_id: c.grantId,
          reason: 'the app was deleted by its developer',
        }),
      ),
    );
    if (!(await this.deps.apps.delete(accountId, id, events))) throw noSuchApp();
    await this.deps.records.revokeClient(id);
  }
}
