/**
 * What an operator does to accounts and locks from the admin CLI, over the ports only, so it runs
 * against whatever store the server uses, from a second process while the server runs.
 */
import { type Account, isEmail, normalizeEmail, passwordProblem } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import { SYSTEM_ACTOR, shareEvent } from '../domain/event.ts';
import type { IpBlock } from '../domain/rate-limit.ts';
import type { WebhookConfig } from '../domain/webhook.ts';
import { changePassword, markDeleted } from './account-changes.ts';
import { renewDemoCredentials } from './demo.ts';
import { EventLog } from './event-log.ts';
import type {
  Clock,
  PasswordHasher,
  RandomSource,
  SecretBox,
  SecretHasher,
  Store,
  WebhookSigner,
} from './ports.ts';
import {
  removeWebhook,
  saveWebhook,
  type WebhookInput,
  webhookConfig,
  webhookRemoved,
  webhookUpdated,
} from './webhooks/settings.ts';

export interface AdminDeps {
  readonly store: Store;
  readonly passwords: PasswordHasher;
  /** Hashes an API key (the demo's new one). */
  readonly secrets: SecretHasher;
  readonly clock: Clock;
  readonly random: RandomSource;
  /**
   * What makes and seals a webhook's signing secret: the server's key. Only setting a webhook needs
   * it, so the other commands never touch the key.
   */
  readonly webhookSecrets?: { readonly box: SecretBox; readonly signer: WebhookSigner };
}

/** An account as the overview shows it: never its hash. */
export interface AccountSummary {
  readonly id: string;
  readonly email: string;
  readonly verified: boolean;
  readonly hasPassword: boolean;
  readonly deletedAt: number | null;
  readonly createdAt: number;
  readonly locksOwned: number;
}

export interface NewAccount {
  /** null: a social-login account, which has never set a password. */
  readonly password: string | null;
  readonly verified: boolean;
}

function summary(account: Account, locksOwned: number): AccountSummary {
  return {
    id: account.id,
    email: account.email,
    verified: account.verified,
    hasPassword: account.passwordHash !== null,
    deletedAt: account.deletedAt,
    createdAt: account.createdAt,
    locksOwned,
  };
}

/** The dashboard's rule (src/domain/account.ts): an account made here can log in there too. */
function checkPassword(password: string): void {
  if (password === '')
    throw new DomainError('INVALID_INPUT', 'the password must not be empty', { field: 'password' });
  const problem = passwordProblem(password);
  if (problem !== undefined)
    throw new DomainError('INVALID_INPUT', `the password ${problem}`, { field: 'password' });
}

export class Admin {
  /** The admin CLI's changes are recorded as the system's. */
  private readonly eventLog: EventLog;

  constructor(private readonly deps: AdminDeps) {
    this.eventLog = new EventLog(deps.store.events, deps.clock, deps.random);
  }

  async createAccount(email: string, options: NewAccount): Promise<AccountSummary> {
    const { store, passwords, clock, random } = this.deps;
    const normalized = normalizeEmail(email);
    if (!isEmail(normalized))
      throw new DomainError('INVALID_INPUT', `"${email}" is not an e-mail address`, { field: 'email' });
    if (options.password !== null) checkPassword(options.password);
    await this.refuseExisting(normalized);
    const account: Account = {
      id: random.uuid(),
      email: normalized,
      passwordHash: options.password === null ? null : await passwords.hash(options.password),
      verified: options.verified,
      deletedAt: null,
      passwordChangedAt: null,
      createdAt: clock.now(),
    };
    try {
      await store.accounts.insert(account);
    } catch (error) {
      // Another process (the server, a second CLI) may have taken the address since the check.
      await this.refuseExisting(normalized);
      throw error;
    }
    return summary(account, 0);
  }

  async setPassword(email: string, password: string): Promise<void> {
    checkPassword(password);
    const { store, passwords, clock } = this.deps;
    const account = await this.liveAccount(email);
    await changePassword(
      { accounts: store.accounts, passwords, clock, eventLog: this.eventLog },
      account,
      password,
      {
        actor: SYSTEM_ACTOR,
        how: 'admin',
      },
    );
  }

  /** Marks the account's e-mail address as verified; false when it already was. */
  async verify(email: string): Promise<boolean> {
    const account = await this.liveAccount(email);
    if (account.verified) return false;
    await this.deps.store.accounts.update(account.id, { verified: true });
    return true;
  }

  /** Deletes the account: its API keys and tokens stop working at once. False when it already was. */
  async deleteAccount(email: string): Promise<boolean> {
    const { store, clock } = this.deps;
    const account = await this.anyAccount(email);
    return markDeleted({ accounts: store.accounts, clock }, account);
  }

  /** Lets the account see and move the lock; sharing it twice is harmless. */
  async shareLock(deviceId: string, email: string): Promise<void> {
    const { store } = this.deps;
    // Device ids are stored in lower case (the seed loader and the pairing normalize them).
    const lock = await store.locks.get(deviceId.trim().toLowerCase());
    if (!lock) throw new DomainError('LOCK_NOT_FOUND', `no lock has the device id ${deviceId}`);
    const account = await this.liveAccount(email);
    if (account.id === lock.ownerId)
      throw new DomainError('CONFLICT', `${account.email} owns lock ${lock.deviceId}: it needs no share`);
    await store.locks.share(
      lock.deviceId,
      account.id,
      this.eventLog.stampAll([
        shareEvent('share.created', lock.ownerId, lock.deviceId, account.id, SYSTEM_ACTOR),
      ]),
      { id: this.deps.random.uuid(), at: this.deps.clock.now() },
    );
  }

  /** Every account, deleted ones too, by e-mail. */
  async listAccounts(): Promise<AccountSummary[]> {
    const { store } = this.deps;
    const [accounts, owned] = await Promise.all([store.accounts.list(), store.locks.countByOwner()]);
    return accounts.map((account) => summary(account, owned.get(account.id) ?? 0));
  }

  /** Client addresses blocked for exceeding the v3 rate limits, still in force. */
  listBlocks(): Promise<IpBlock[]> {
    return this.deps.store.blocks.listActive(this.deps.clock.now());
  }

  /** Lifts a block at once (running servers see it within a second); false when there was none. */
  unblock(ip: string): Promise<boolean> {
    return this.deps.store.blocks.unblock(ip.trim());
  }

  /** The account's webhook (its settings, never its secret), or undefined when it has none. */
  async webhook(email: string): Promise<WebhookConfig | undefined> {
    const account = await this.anyAccount(email);
    return this.deps.store.webhooks.get(account.id);
  }

  /**
   * Sets the account's webhook by the rules the extension API applies (a PUT: the method defaults to
   * POST, retries to off). The first time, the signing secret is made, sealed, and answered this once.
   */
  async setWebhook(
    email: string,
    input: WebhookInput,
  ): Promise<{ config: WebhookConfig; secret: string | undefined }> {
    const { store, clock, webhookSecrets } = this.deps;
    const account = await this.liveAccount(email);
    const config = webhookConfig(account.id, input);
    if (!webhookSecrets) throw new Error('setting a webhook needs the server key (webhookSecrets)');
    const events = this.eventLog.stampAll([webhookUpdated(config, SYSTEM_ACTOR)]);
    const secret = await saveWebhook({ webhooks: store.webhooks, clock, ...webhookSecrets }, config, events);
    return { config, secret };
  }

  /**
   * A new password and one more API key for the sandbox's demo account, answered this once
   * (demo.ts): its first ones were printed once, at the start that made it.
   */
  renewDemo(): Promise<{ email: string; password: string; apiKey: string }> {
    return renewDemoCredentials(this.deps);
  }

  /** Removes the account's webhook and its secret, as DELETE /ext/webhook does; false when it had none. */
  async removeWebhook(email: string): Promise<boolean> {
    const account = await this.anyAccount(email);
    const events = this.eventLog.stampAll([webhookRemoved(account.id, SYSTEM_ACTOR)]);
    return removeWebhook(this.deps.store, account.id, events);
  }

  private async refuseExisting(normalizedEmail: string): Promise<void> {
    const existing = await this.deps.store.accounts.findByEmail(normalizedEmail);
    if (!existing) return;
    const state = existing.deletedAt === null ? '' : ' (deleted; its address stays taken)';
    throw new DomainError('CONFLICT', `an account with the e-mail ${normalizedEmail} already exists${state}`);
  }

  private async anyAccount(email: string): Promise<Account> {
    const normalized = normalizeEmail(email);
    const account = await this.deps.store.accounts.findByEmail(normalized);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', `no account has the e-mail ${normalized}`);
    return account;
  }

  private async liveAccount(email: string): Promise<Account> {
    const account = await this.anyAccount(email);
    if (account.deletedAt !== null)
      throw new DomainError('ACCOUNT_NOT_FOUND', `the account ${account.email} is deleted`);
    return account;
  }
}
