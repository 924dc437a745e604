import type { ApiKey } from '../../domain/api-key.ts';
import { displayPrefix, formatApiKey } from '../../domain/api-key.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountEvent, sessionActor } from '../../domain/event.ts';
import { FULL_ACCESS } from '../../domain/scope.ts';
import type { EventLog } from '../event-log.ts';
import type { ApiKeyStore, Clock, RandomSource, SecretHasher } from '../ports.ts';
import type { OneTimeCodes } from './codes.ts';
import type { Sessions, SignedIn } from './sessions.ts';

export interface ApiSettingsDeps {
  readonly apiKeys: ApiKeyStore;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly codes: OneTimeCodes;
  readonly sessions: Sessions;
  /** Where keys made and deleted are recorded; none: not recorded. */
  readonly eventLog?: EventLog;
}

/** 24 random bytes: 192 bits, as the demo and the README's keys. */
const KEY_BYTES = 24;

/**
 * API Settings as the v3 document describes them: a code mailed to the login address, confirmed,
 * then keys may be added (shown once) and deleted (refused with 401 at once).
 */
export class ApiSettings {
  constructor(private readonly deps: ApiSettingsDeps) {}

  requestCode(me: SignedIn): Promise<void> {
    return this.deps.codes.send(me.account, 'api-settings');
  }

  async confirmCode(me: SignedIn, code: unknown, clientIp: string): Promise<void> {
    await this.deps.codes.spendTryFrom(clientIp);
    await this.deps.codes.consume(me.account.email, me.account, 'api-settings', code);
    await this.deps.sessions.unlockApiSettings(me.session);
  }

  listKeys(me: SignedIn): Promise<ApiKey[]> {
    return this.deps.apiKeys.listForAccount(me.account.id);
  }

  /** A new key: the full key is answered this once; only its hash and prefix are kept. */
  async createKey(me: SignedIn): Promise<{ key: string; view: ApiKey }> {
    this.requireUnlocked(me);
    const { apiKeys, secrets, random, clock } = this.deps;
    const key = formatApiKey(random.secret(KEY_BYTES));
    const view: ApiKey = {
      id: random.uuid(),
      accountId: me.account.id,
      prefix: displayPrefix(key),
      createdAt: clock.now(),
      lastUsedAt: null,
      // The dashboard makes keys as before: full access, no label (limits come with their form).
      limits: FULL_ACCESS,
      name: null,
      lastUsedIp: null,
    };
    const events = this.deps.eventLog?.stampAll([
      accountEvent('api_key.created', me.account.id, sessionActor(me.account.id), {
        key_id: view.id,
        key_prefix: view.prefix,
      }),
    ]);
    await apiKeys.insert({ ...view, hash: secrets.hash(key) }, events);
    return { key, view };
  }

  async deleteKey(me: SignedIn, keyId: unknown): Promise<void> {
    this.requireUnlocked(me);
    const log = this.deps.eventLog;
    const events =
      log &&
      ((gone: ApiKey) =>
        log.stampAll([
          accountEvent('api_key.deleted', me.account.id, sessionActor(me.account.id), {
            key_id: gone.id,
            key_prefix: gone.prefix,
          }),
        ]));
    if (typeof keyId !== 'string' || !(await this.deps.apiKeys.remove(me.account.id, keyId, events)))
      throw new DomainError('INVALID_INPUT', 'no such key (it may have been deleted already)', {
        field: 'key',
      });
  }

  /** Keys and the webhook change only after the code: a stolen session alone cannot mint keys. */
  requireUnlocked(me: SignedIn): void {
    if (!me.apiUnlocked)
      throw new DomainError(
        'CONFIRMATION_REQUIRED',
        'confirm the API Settings code first (it lasts 30 minutes)',
      );
  }
}
