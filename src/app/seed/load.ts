import { formatDeviceSecret } from '../../domain/access-point.ts';
import { normalizeEmail } from '../../domain/account.ts';
import { displayPrefix } from '../../domain/api-key.ts';
import type { NewLock } from '../../domain/lock.ts';
import { SIM_HEALTH, type SimDeviceState } from '../../domain/sim-device.ts';
import type {
  BrokerPasswordHasher,
  PasswordHasher,
  RandomSource,
  SecretBox,
  SecretHasher,
  Store,
} from '../ports.ts';
import type { Seed, SeedLock } from './schema.ts';

export interface SeedDeps {
  readonly store: Store;
  readonly random: RandomSource;
  /** Hashes device secrets for an external broker's password file (Mosquitto), when there is one. */
  readonly brokerPasswords?: BrokerPasswordHasher;
  readonly secrets: SecretHasher;
  readonly passwords: PasswordHasher;
  readonly secretBox: SecretBox;
  /** The creation time of every row the seed makes. */
  readonly now: number;
}

/**
 * The creation time of rows loaded from a seed file. Fixed rather than the time of loading, so the
 * same seed gives the same rows in every data directory, on every machine, at every start.
 */
export const SEED_CREATED_AT = Date.UTC(2024, 0, 1);

/** Ids derived from the seed's own names, so the same seed gives the same rows every time. */
function seededId(secrets: SecretHasher, namespace: string, name: string): string {
  const hex = secrets
    .hash(`lockcloud-seed:${namespace}:${name}`)
    .replace(/[^0-9a-f]/g, '')
    .padEnd(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function seedLockDefaults(lock: SeedLock): Required<Omit<SeedLock, 'owner' | 'access_point_id'>> {
  const deviceId = lock.device_id.toLowerCase();
  const serial = lock.serial ?? deviceId.replace(/-/g, '').slice(-10).toUpperCase();
  return {
    device_id: deviceId,
    serial,
    nickname: lock.nickname ?? `Lock ${serial}`,
    shared_with: lock.shared_with ?? [],
    locked: lock.locked ?? true,
    battery: lock.battery ?? 100,
    responsive: lock.responsive ?? true,
    integration: lock.integration ?? true,
    access_point: lock.access_point ?? true,
    app_open: lock.app_open ?? false,
    latency_ms: lock.latency_ms ?? 0,
  };
}

/** The simulated device a seed lock describes, run by the access point `apId`. */
export function simDeviceOf(lock: ReturnType<typeof seedLockDefaults>, apId: string): SimDeviceState {
  return {
    deviceId: lock.device_id,
    apId,
    serial: lock.serial,
    nickname: lock.nickname,
    locked: lock.locked,
    battery: lock.battery,
    responsive: lock.responsive,
    accessPoint: lock.access_point,
    appOpen: lock.app_open,
    latencyMs: lock.latency_ms,
    failNext: null,
    ...SIM_HEALTH,
  };
}

/** Loads a validated seed into an empty store and the simulator; see docs/sandbox.md for the defaults. */
export async function loadSeed(seed: Seed, deps: SeedDeps): Promise<void> {
  const { store, secrets, now } = deps;
  const accountIds = new Map<string, string>();
  for (const account of seed.accounts ?? []) {
    const email = normalizeEmail(account.email);
    const id = seededId(secrets, 'account', email);
    accountIds.set(email, id);
    const password = account.password ?? null;
    await store.accounts.insert({
      id,
      email,
      passwordHash: password === null ? null : await deps.passwords.hash(password),
      verified: account.verified ?? true,
      deletedAt: null,
      passwordChangedAt: null,
      createdAt: now,
    });
  }
  const accountId = (email: string): string => {
    const id = accountIds.get(normalizeEmail(email));
    if (id === undefined) throw new Error(`seed names an unknown account ${email}`); // validateSeed rules this out
    return id;
  };
  for (const key of seed.api_keys ?? []) {
    const hash = secrets.hash(key.key);
    await store.apiKeys.insert({
      id: seededId(secrets, 'api-key', hash),
      accountId: accountId(key.account),
      hash,
      prefix: displayPrefix(key.key),
      createdAt: now,
    });
  }
  const apOf = await loadAccessPoints(seed, deps, accountId);
  // Creation times one millisecond apart keep the file's order as the listing order.
  let order = 0;
  for (const entry of seed.locks ?? []) {
    const lock = seedLockDefaults(entry);
    const apId = await apOf(entry);
    const stored: NewLock = {
      deviceId: lock.device_id,
      serial: lock.serial,
      nickname: lock.nickname,
      ownerId: accountId(entry.owner),
      locked: lock.locked,
      battery: lock.battery,
      responsive: lock.responsive && lock.access_point,
      integration: lock.integration,
      accessPoint: lock.access_point,
      appOpen: lock.app_open,
      accessPointId: apId,
      createdAt: now + order++,
    };
    await store.locks.insert(stored);
    for (const email of lock.shared_with) {
      const guestId = accountId(email);
      // The grant's id from the seed's names, as every seeded row's: the same seed, the same rows.
      const made = { id: seededId(secrets, 'grant', `${lock.device_id}:${guestId}`), at: now };
      await store.locks.share(lock.device_id, guestId, [], made);
    }
    await store.simDevices.save(simDeviceOf(lock, apId));
  }
  for (const hook of seed.webhooks ?? []) {
    const id = accountId(hook.account);
    await store.webhooks.set({
      accountId: id,
      url: hook.url,
      method: hook.method ?? 'POST',
      retries: hook.retries ?? false,
    });
    if (hook.secret !== undefined) {
      await store.webhooks.setSecrets(id, {
        current: deps.secretBox.seal(hook.secret),
        previous: null,
        previousUntil: null,
      });
    }
  }
}

/**
 * Registers the seed's access points, and one per owner for locks that name none, as simulated
 * devices: each gets MQTT credentials (its own secret, or a random one), kept sealed so the server's
 * simulator can connect as it. Returns how to find a lock's access point.
 */
async function loadAccessPoints(
  seed: Seed,
  deps: SeedDeps,
  accountId: (email: string) => string,
): Promise<(lock: SeedLock) => Promise<string>> {
  const { store, secrets, secretBox, random, now } = deps;
  const register = async (id: string, account: string, name: string, secret?: string): Promise<void> => {
    const plain = secret ?? formatDeviceSecret(random.secret(24));
    await store.accessPoints.insert({
      id,
      accountId: accountId(account),
      name,
      secretHash: secrets.hash(plain),
      brokerHash: deps.brokerPasswords?.hash(plain) ?? null,
      createdAt: now,
      online: false,
      lastSeenAt: null,
    });
    await store.simDevices.saveAccessPoint({ id, sealedSecret: secretBox.seal(plain) });
  };
  for (const ap of seed.access_points ?? []) {
    await register(ap.id.toLowerCase(), ap.account, ap.name ?? 'Simulated access point', ap.secret);
  }
  const implicit = new Map<string, string>();
  return async (lock) => {
    if (lock.access_point_id !== undefined) return lock.access_point_id.toLowerCase();
    const owner = normalizeEmail(lock.owner);
    let id = implicit.get(owner);
    if (id === undefined) {
      id = seededId(secrets, 'access-point', owner);
      implicit.set(owner, id);
      await register(id, owner, 'Home access point');
    }
    return id;
  };
}
