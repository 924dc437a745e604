import type { ApiKey } from '../../domain/api-key.ts';
import { DomainError } from '../../domain/errors.ts';
import { sessionActor } from '../../domain/event.ts';
import { FULL_ACCESS } from '../../domain/scope.ts';
import type { ApiKeyStore } from '../ports.ts';
import type { ApiKeys, NewKeyInput } from './api-keys.ts';
import type { OneTimeCodes } from './codes.ts';
import type { Sessions, SignedIn } from './sessions.ts';

export interface ApiSettingsDeps {
  readonly apiKeys: ApiKeyStore;
  /** Makes and deletes the keys (and logs it), as /ext/keys does. */
  readonly keys: ApiKeys;
  readonly codes: OneTimeCodes;
  readonly sessions: Sessions;
}

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

  /**
   * A new key with these limits (none given: full access, as before limits): the full key is
   * answered this once; only its hash and prefix are kept. The owner's session may give any limits,
   * so it calls as a full-access key would; the checks (scopes, own locks, a future expiry) are
   * those of /ext/keys. The dashboard reads its form into this input and words the refusals by the
   * form's fields (src/http/dashboard/key-form.ts).
   */
  async createKey(me: SignedIn, input: NewKeyInput): Promise<{ key: string; view: ApiKey }> {
    this.requireUnlocked(me);
    const caller = { accountId: me.account.id, actor: sessionActor(me.account.id), limits: FULL_ACCESS };
    return this.deps.keys.createWithin(caller, input);
  }

  async deleteKey(me: SignedIn, keyId: unknown): Promise<void> {
    this.requireUnlocked(me);
    if (
      typeof keyId !== 'string' ||
      !(await this.deps.keys.remove(me.account.id, sessionActor(me.account.id), keyId))
    )
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
