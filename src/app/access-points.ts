/**
 * Provisioning access points from the admin CLI: registering one for an account (its MQTT
 * credentials are made here and shown once), listing and removing them, and what an external
 * broker's password file needs. Over the ports only, like the other admin use cases.
 */
import type { AccessPoint } from '../domain/access-point.ts';
import { formatDeviceSecret } from '../domain/access-point.ts';
import { type Account, normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import type { BrokerPasswordHasher, Clock, RandomSource, SecretHasher, Store } from './ports.ts';

export interface AccessPointsDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** The hash the embedded broker checks a CONNECT against. */
  readonly secrets: SecretHasher;
  /** The hash an external broker (Mosquitto) checks, written to its password file by `mqtt-acl`. */
  readonly brokerPasswords: BrokerPasswordHasher;
  /** The MQTT user name of an access point (the protocol's, `ap:{id}` today). */
  readonly username: (apId: string) => string;
}

/** A new access point's credentials: the secret exists only here, it is stored as hashes. */
export interface RegisteredAccessPoint {
  readonly id: string;
  readonly accountEmail: string;
  readonly name: string;
  readonly username: string;
  readonly secret: string;
}

/** An access point as the CLI lists it: never its hashes. */
export interface AccessPointSummary extends AccessPoint {
  /** null when its account is gone from the store. */
  readonly accountEmail: string | null;
}

export interface BrokerUser {
  readonly apId: string;
  readonly username: string;
  readonly hash: string;
}

export const DEFAULT_AP_NAME = 'Access point';
const MAX_NAME_LENGTH = 100;
/** Generous but bounded: a typo of 10000 must not mint ten thousand credentials. */
export const MAX_REGISTER_COUNT = 1000;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_NAME_LENGTH || CONTROL.test(trimmed))
    throw new DomainError(
      'INVALID_INPUT',
      `the name must be 1 to ${MAX_NAME_LENGTH} characters, without control characters`,
      { field: 'name' },
    );
  return trimmed;
}

export class AccessPoints {
  constructor(private readonly deps: AccessPointsDeps) {}

  /**
   * Registers `count` access points for a live account. Each gets a random id and a secret of 192
   * bits, stored only as hashes: the answer is the one time it can be read.
   */
  async register(email: string, name: string = DEFAULT_AP_NAME, count = 1): Promise<RegisteredAccessPoint[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_REGISTER_COUNT)
      throw new DomainError(
        'INVALID_INPUT',
        `the count must be a whole number from 1 to ${MAX_REGISTER_COUNT}`,
        {
          field: 'count',
        },
      );
    const base = checkName(name);
    const { store, clock, random, secrets, brokerPasswords, username } = this.deps;
    const account = await this.liveAccount(email);
    const registered: RegisteredAccessPoint[] = [];
    for (let i = 1; i <= count; i++) {
      const id = random.uuid();
      const secret = formatDeviceSecret(random.secret(24));
      const apName = count === 1 ? base : `${base} ${i}`;
      await store.accessPoints.insert({
        id,
        accountId: account.id,
        name: apName,
        secretHash: secrets.hash(secret),
        brokerHash: brokerPasswords.hash(secret),
        createdAt: clock.now(),
        online: false,
        lastSeenAt: null,
      });
      registered.push({ id, accountEmail: account.email, name: apName, username: username(id), secret });
    }
    return registered;
  }

  /** Every access point, or one account's (deleted accounts' too), oldest first. */
  async list(email?: string): Promise<AccessPointSummary[]> {
    const { store } = this.deps;
    if (email !== undefined) {
      const account = await this.anyAccount(email);
      const aps = await store.accessPoints.listForAccount(account.id);
      return aps.map((ap) => ({ ...ap, accountEmail: account.email }));
    }
    const [aps, accounts] = await Promise.all([store.accessPoints.list(), store.accounts.list()]);
    const emails = new Map(accounts.map((a) => [a.id, a.email]));
    return aps.map((ap) => ({ ...ap, accountEmail: emails.get(ap.accountId) ?? null }));
  }

  /**
   * Forgets the access point: its credentials stop working (the embedded broker checks every
   * CONNECT; an external broker once its files are written again and reloaded). Its locks stay in
   * their account; the device link unpairs them.
   */
  async remove(id: string): Promise<void> {
    const normalized = id.trim().toLowerCase();
    const removed = await this.deps.store.accessPoints.remove(normalized);
    if (!removed) throw new DomainError('INVALID_INPUT', `no access point has the id ${normalized}`);
  }

  /**
   * The access points' user names and broker hashes for an external broker's password file, by id;
   * `missing` counts those registered without one (by the seed), which that broker will refuse.
   */
  async brokerUsers(): Promise<{ users: BrokerUser[]; missing: number }> {
    const rows = await this.deps.store.accessPoints.brokerHashes();
    const users: BrokerUser[] = [];
    for (const row of rows) {
      if (row.brokerHash !== null)
        users.push({ apId: row.id, username: this.deps.username(row.id), hash: row.brokerHash });
    }
    return { users, missing: rows.length - users.length };
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
