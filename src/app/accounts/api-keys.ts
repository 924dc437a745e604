/**
 * Making, listing and deleting an account's API keys, whoever asks: the dashboard's API Settings
 * (behind the mailed code, app/accounts/api-settings.ts) and a key with keys:manage on /ext/keys.
 * Both write the same api_key.created / api_key.deleted events, with their own actor.
 */
import type { ApiKey } from '../../domain/api-key.ts';
import { displayPrefix, formatApiKey } from '../../domain/api-key.ts';
import { DomainError } from '../../domain/errors.ts';
import { type Actor, accountEvent } from '../../domain/event.ts';
import {
  checkKeyLimitsInput,
  FULL_ACCESS,
  type KeyLimits,
  type KeyLimitsInput,
  keyLimitsWithin,
} from '../../domain/scope.ts';
import type { EventLog } from '../event-log.ts';
import type { ApiKeyStore, Clock, LockStore, RandomSource, SecretHasher } from '../ports.ts';

export interface ApiKeysDeps {
  readonly apiKeys: ApiKeyStore;
  readonly locks: Pick<LockStore, 'listOwnedBy'>;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  /** Where keys made and deleted are recorded; none: not recorded. */
  readonly eventLog?: EventLog;
}

/** 24 random bytes: 192 bits, as the demo and the README's keys. */
const KEY_BYTES = 24;
const MAX_NAME = 64;

/** A new key asked for through the API (POST /ext/keys), unchecked. */
export interface NewKeyInput extends KeyLimitsInput {
  readonly name?: unknown;
}

/** Who asks through the API: the calling key's account, its actor and its own limits. */
export interface KeyCaller {
  readonly accountId: string;
  readonly actor: Actor;
  readonly limits: KeyLimits;
}

const nameOf = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '' || name.length > MAX_NAME)
    throw new DomainError('INVALID_INPUT', `name: must be text of 1 to ${MAX_NAME} characters, or null`, {
      field: 'name',
    });
  return name;
};

export class ApiKeys {
  constructor(private readonly deps: ApiKeysDeps) {}

  list(accountId: string): Promise<ApiKey[]> {
    return this.deps.apiKeys.listForAccount(accountId);
  }

  /** A new key: the full key is answered this once; only its hash and prefix are kept. */
  async create(
    accountId: string,
    actor: Actor,
    limits: KeyLimits = FULL_ACCESS,
    name: string | null = null,
  ): Promise<{ key: string; view: ApiKey }> {
    const { apiKeys, secrets, random, clock } = this.deps;
    const key = formatApiKey(random.secret(KEY_BYTES));
    const view: ApiKey = {
      id: random.uuid(),
      accountId,
      prefix: displayPrefix(key),
      createdAt: clock.now(),
      lastUsedAt: null,
      limits,
      name,
      lastUsedIp: null,
    };
    const events = this.deps.eventLog?.stampAll([
      accountEvent('api_key.created', accountId, actor, { key_id: view.id, key_prefix: view.prefix }),
    ]);
    await apiKeys.insert({ ...view, hash: secrets.hash(key) }, events);
    return { key, view };
  }

  /**
   * A key made by a key (POST /ext/keys): its limits checked (400 naming the field), its locks the
   * account's own (400 naming lock_ids), and no more than the caller's own limits (SCOPE_MISSING,
   * 403): a key limited to one lock or scope cannot mint a wider one.
   */
  async createWithin(caller: KeyCaller, input: NewKeyInput): Promise<{ key: string; view: ApiKey }> {
    const now = this.deps.clock.now();
    const name = nameOf(input.name);
    const asked = checkKeyLimitsInput(input, now);
    const limits =
      asked.lockIds === null
        ? asked
        : { ...asked, lockIds: await this.ownLocks(caller.accountId, asked.lockIds) };
    if (!keyLimitsWithin(limits, caller.limits))
      throw new DomainError(
        'SCOPE_MISSING',
        'the new key would have more than this API key has: every scope, lock and expiry must be within its own',
      );
    return this.create(caller.accountId, caller.actor, limits, name);
  }

  /** The locks named, as the account's own locks are stored (lower case), or a refusal naming lock_ids. */
  private async ownLocks(accountId: string, asked: readonly string[]): Promise<string[]> {
    const owned = new Set((await this.deps.locks.listOwnedBy(accountId)).map((l) => l.deviceId));
    const ids = asked.map((id) => id.toLowerCase());
    const foreign = ids.find((id) => !owned.has(id));
    if (foreign !== undefined)
      throw new DomainError('INVALID_INPUT', `lock_ids: "${foreign}" is not a lock of this account`, {
        field: 'lock_ids',
      });
    if (new Set(ids).size !== ids.length)
      throw new DomainError('INVALID_INPUT', 'lock_ids: a lock is given twice', { field: 'lock_ids' });
    return ids;
  }

  /** Deletes one of the account's keys (refused with 401 at once); false when it has no such key. */
  remove(accountId: string, actor: Actor, keyId: string): Promise<boolean> {
    const log = this.deps.eventLog;
    const events =
      log &&
      ((gone: ApiKey) =>
        log.stampAll([
          accountEvent('api_key.deleted', accountId, actor, { key_id: gone.id, key_prefix: gone.prefix }),
        ]));
    return this.deps.apiKeys.remove(accountId, keyId, events);
  }
}
