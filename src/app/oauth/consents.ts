/**
 * Owners' authorizations of apps (issue 24): what the consent page shows and records, the list of
 * apps an owner authorized, and withdrawing one, which revokes every code and token of it at once.
 */
import { DomainError } from '../../domain/errors.ts';
import { type Actor, accountEvent } from '../../domain/event.ts';
import {
  checkConsentChoice,
  type OAuthApp,
  type OAuthConsent,
  requestedScopes,
} from '../../domain/oauth-app.ts';
import type { Scope } from '../../domain/scope.ts';
import type { EventLog } from '../event-log.ts';
import type { Clock, LockStore, OAuthAppStore, OAuthRecordStore } from '../ports.ts';

export interface OAuthConsentsDeps {
  readonly apps: OAuthAppStore;
  readonly records: Pick<OAuthRecordStore, 'revokeGrant'>;
  readonly locks: Pick<LockStore, 'listOwnedBy'>;
  readonly clock: Clock;
  /** Where authorizations given and withdrawn are recorded (the owner's log); none: not recorded. */
  readonly eventLog?: EventLog;
}

/** What the owner's log says of an authorization: the app, and the grant its tokens carry. */
const consentData = (consent: OAuthConsent, appName: string) => ({
  app_id: consent.appId,
  app_name: appName,
  scopes: consent.scopes,
  lock_ids: consent.lockIds,
  grant_id: consent.grantId,
});

/** What the consent page needs: the app, the scopes it asks for, the owner's locks, what is remembered. */
export interface ConsentRequest {
  readonly app: OAuthApp;
  readonly asked: readonly Scope[];
  readonly locks: readonly { readonly deviceId: string; readonly name: string }[];
  readonly remembered: OAuthConsent | undefined;
}

/** The owner's choice on the consent page, unchecked. */
export interface ConsentChoice {
  readonly scopes: readonly string[];
  /** null: every lock, also those added later. */
  readonly lockIds: readonly string[] | null;
}

export class OAuthConsents {
  constructor(private readonly deps: OAuthConsentsDeps) {}

  /** The page's content for an authorization request of `clientId` asking for `scope`. */
  async request(accountId: string, clientId: string, scope: string | undefined): Promise<ConsentRequest> {
    const app = await this.deps.apps.find(clientId);
    if (!app) throw new DomainError('APP_NOT_FOUND', 'no such app');
    const asked = requestedScopes(scope);
    if (asked.length === 0)
      throw new DomainError('INVALID_INPUT', 'the app asks for no scope lockcloud knows', { field: 'scope' });
    const [owned, remembered] = await Promise.all([
      this.deps.locks.listOwnedBy(accountId),
      this.deps.apps.findConsent(accountId, clientId),
    ]);
    const locks = owned.map((l) => ({ deviceId: l.deviceId, name: l.nickname }));
    return { app, asked, locks, remembered };
  }

  /**
   * The remembered consent when it already covers every scope asked: the request is then answered
   * without a page (an owner who wants to change it withdraws it, or the app asks with
   * prompt=consent).
   */
  covering(request: ConsentRequest): OAuthConsent | undefined {
    const { remembered, asked } = request;
    return remembered && asked.every((s) => remembered.scopes.includes(s)) ? remembered : undefined;
  }

  /**
   * Checks the owner's choice against what the app asked and the owner's locks, as the request read
   * them for the page a moment ago (not read twice).
   */
  check(
    request: ConsentRequest,
    choice: ConsentChoice,
  ): { scopes: readonly Scope[]; lockIds: readonly string[] | null } {
    const owned = new Set(request.locks.map((l) => l.deviceId));
    return checkConsentChoice(request.asked, choice.scopes, choice.lockIds, owned);
  }

  /**
   * Records the consent under the grant the authorization server made for it. A consent replaced
   * by a new one ends the old grant's tokens: the app holds what the owner granted last.
   */
  async record(
    accountId: string,
    app: Pick<OAuthApp, 'id' | 'name'>,
    checked: { scopes: readonly Scope[]; lockIds: readonly string[] | null },
    grantId: string,
    actor: Actor,
  ): Promise<OAuthConsent> {
    const appId = app.id;
    const before = await this.deps.apps.findConsent(accountId, appId);
    const consent: OAuthConsent = {
      accountId,
      appId,
      scopes: checked.scopes,
      lockIds: checked.lockIds,
      grantId,
      grantedAt: this.deps.clock.now(),
      lastUsedAt: null,
    };
    const events = this.deps.eventLog?.stampAll([
      accountEvent('oauth_app.authorized', accountId, actor, {
        ...consentData(consent, app.name),
        // A stream acting for a token of the replaced grant ends with it.
        replaced_grant_id: before && before.grantId !== grantId ? before.grantId : null,
      }),
    ]);
    await this.deps.apps.putConsent(consent, events);
    if (before && before.grantId !== grantId) await this.deps.records.revokeGrant(before.grantId);
    return consent;
  }

  /** The apps the account authorized, most recent first. */
  list(accountId: string): Promise<{ consent: OAuthConsent; app: OAuthApp }[]> {
    return this.deps.apps.listConsents(accountId);
  }

  /**
   * Withdraws the account's consent to the app: every code and token of it fails from now on.
   * Answers the app's name (for the owner's notice, and the event's).
   */
  async withdraw(accountId: string, appId: string, actor: Actor): Promise<{ appName: string }> {
    const log = this.deps.eventLog;
    const appName = (await this.deps.apps.find(appId))?.name ?? appId;
    const events =
      log &&
      ((consent: OAuthConsent) =>
        log.stampAll([accountEvent('oauth_app.revoked', accountId, actor, consentData(consent, appName))]));
    const gone = await this.deps.apps.deleteConsent(accountId, appId, events);
    if (!gone) throw new DomainError('APP_NOT_FOUND', 'this account has not authorized that app');
    await this.deps.records.revokeGrant(gone.grantId);
    return { appName };
  }
}
