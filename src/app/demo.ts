import { displayPrefix, formatApiKey } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { Clock, NewApiKey, PasswordHasher, RandomSource, SecretHasher, Store } from './ports.ts';
import type { Seed } from './seed/schema.ts';

export const DEMO_EMAIL = 'demo@lockcloud.example';
export const DEMO_META_KEY = 'demo';
/** The demo's credentials made by renewDemoCredentials(), hashed, for a sandbox reset to keep. */
export const DEMO_CREDENTIALS_META_KEY = 'demo.credentials';

export interface Demo {
  readonly seed: Seed;
  readonly email: string;
  readonly password: string;
  readonly apiKey: string;
}

/**
 * The first-start demo: one account, two simulated locks that take a second to move (so a
 * "processing" task can be seen), and fresh credentials that are printed once and stored only hashed.
 */
export function demoSeed(random: RandomSource): Demo {
  const { password, apiKey } = freshCredentials(random);
  const seed: Seed = {
    accounts: [{ email: DEMO_EMAIL, password, verified: true }],
    api_keys: [{ account: DEMO_EMAIL, key: apiKey }],
    locks: [
      {
        device_id: random.uuid(),
        nickname: 'Front door',
        owner: DEMO_EMAIL,
        locked: true,
        battery: 87,
        latency_ms: 1000,
      },
      {
        device_id: random.uuid(),
        nickname: 'Garden gate',
        owner: DEMO_EMAIL,
        locked: false,
        battery: 64,
        latency_ms: 1000,
      },
    ],
  };
  return { seed, email: DEMO_EMAIL, password, apiKey };
}

function freshCredentials(random: RandomSource): { password: string; apiKey: string } {
  return { password: random.secret(12), apiKey: formatApiKey(random.secret(24)) };
}

export interface DemoCredentialsDeps {
  readonly store: Store;
  readonly passwords: PasswordHasher;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
}

/** What a reset puts back of the renewed credentials: hashes only, like the store. */
interface RenewedCredentials {
  readonly passwordHash: string;
  readonly passwordChangedAt: number;
  readonly keys: readonly Omit<NewApiKey, 'accountId'>[];
}

/**
 * New credentials for the demo account, for whoever missed the ones its first start printed once: a
 * new password (the old one and the v1 tokens issued with it stop working) and one more API key,
 * answered this once and stored only hashed. A sandbox reset returns the demo to its first state,
 * but keeps these: the first ones are still unknown (restoreRenewedDemoCredentials).
 */
export async function renewDemoCredentials(
  deps: DemoCredentialsDeps,
): Promise<{ email: string; password: string; apiKey: string }> {
  const { store, passwords, secrets, random, clock } = deps;
  if ((await store.getMeta(DEMO_META_KEY)) !== 'true')
    throw new DomainError(
      'INVALID_INPUT',
      'this data holds no sandbox demo (it was started with a seed, or never in the sandbox)',
    );
  const account = await store.accounts.findByEmail(DEMO_EMAIL);
  if (!account || account.deletedAt !== null)
    throw new DomainError('ACCOUNT_NOT_FOUND', `the demo account ${DEMO_EMAIL} is deleted`);
  const { password, apiKey } = freshCredentials(random);
  const now = clock.now();
  const key = {
    id: random.uuid(),
    hash: secrets.hash(apiKey),
    prefix: displayPrefix(apiKey),
    createdAt: now,
  };
  const passwordHash = await passwords.hash(password);
  const earlier = renewedOf(await store.getMeta(DEMO_CREDENTIALS_META_KEY));
  const renewed: RenewedCredentials = {
    passwordHash,
    passwordChangedAt: now,
    keys: [...(earlier?.keys ?? []), key],
  };
  // What a reset must put back is written first: a key the store holds is never one a reset loses.
  await store.setMeta(DEMO_CREDENTIALS_META_KEY, JSON.stringify(renewed));
  // As a password change anywhere: earlier v1 tokens answer 20003 (account-changes.ts).
  await store.accounts.update(account.id, { passwordHash, passwordChangedAt: now });
  await store.apiKeys.insert({ ...key, accountId: account.id });
  return { email: DEMO_EMAIL, password, apiKey };
}

/** After a sandbox reset to the demo's first state: its renewed credentials, if any, hold again. */
export async function restoreRenewedDemoCredentials(store: Store): Promise<void> {
  const renewed = renewedOf(await store.getMeta(DEMO_CREDENTIALS_META_KEY));
  if (renewed === undefined) return;
  const account = await store.accounts.findByEmail(DEMO_EMAIL);
  if (!account) return;
  const { passwordHash, passwordChangedAt } = renewed;
  await store.accounts.update(account.id, { passwordHash, passwordChangedAt });
  for (const key of renewed.keys) await store.apiKeys.insert({ ...key, accountId: account.id });
}

function renewedOf(saved: string | undefined): RenewedCredentials | undefined {
  return saved === undefined ? undefined : (JSON.parse(saved) as RenewedCredentials);
}
