import { formatApiKey } from '../domain/api-key.ts';
import type { RandomSource } from './ports.ts';
import type { Seed } from './seed/schema.ts';

export const DEMO_EMAIL = 'demo@lockcloud.example';
export const DEMO_META_KEY = 'demo';

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
  const password = random.secret(12);
  const apiKey = formatApiKey(random.secret(24));
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
