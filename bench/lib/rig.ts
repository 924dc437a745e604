/**
 * The device benches' world: a seed of accounts (each with an API key), access points with known
 * secrets and zero-latency locks; a lockcloud process with --no-simulator over the embedded broker
 * or a Mosquitto of the bench's own; and `lockcloud sim --seed` as a process of its own playing
 * every access point and lock over that broker, as real devices would. Ready once every lock reads
 * responsive.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Seed } from '../../src/app/seed/schema.ts';
import { HttpClient } from './load.ts';
import {
  hugeRateLimits,
  type Lockcloud,
  type Proc,
  startLockcloud,
  startMosquitto,
  startSim,
  tempDir,
  until,
} from './processes.ts';
import { profileSection } from './profile.ts';
import { PROFILE_DIR, progress } from './report.ts';

export interface RigOptions {
  readonly broker: 'embedded' | 'mosquitto';
  readonly accounts: number;
  readonly accessPointsPerAccount: number;
  readonly locksPerAccessPoint: number;
  /** The first account's password (for v1 login); every other account has none. */
  readonly password?: string;
  /** Each account's webhook (POST), `{device_id}` and `{state}` filled in by the server. */
  readonly webhookUrl?: string;
  /**
   * Run the server from another checkout (a baseline commit, side by side), whose rate-limits file
   * names only these endpoints (all of its own when none are given); this checkout by default.
   */
  readonly serverRoot?: { readonly dir: string; readonly limitedEndpoints?: readonly string[] };
  /**
   * Every simulated access point speaks device protocol version 1 only (`lockcloud sim --v1-share 1`),
   * for a server older than version 2 (before e.g. 58485a3 knew only version 1 and dropped every
   * version-2 message: no acknowledgement reached it, so every command timed out). By default the
   * simulator's access points speak versions 1 and 2, as today's firmware does.
   */
  readonly v1Devices?: boolean;
}

export interface RigLock {
  readonly deviceId: string;
  /** The owner's API key. */
  readonly key: string;
  readonly account: number;
}

export interface Rig {
  readonly server: Lockcloud;
  readonly sim: Proc;
  readonly locks: readonly RigLock[];
  email(account: number): string;
  /**
   * Stops everything; with `--profile`, the server's CPU profile summarized, per what it served
   * (`per`: the commands the bench made, say) when told.
   */
  stop(per?: {
    readonly count: number;
    readonly unit: string;
  }): Promise<{ title: string; body: string } | undefined>;
}

/**
 * Whether the simulator of the tree at `root` (this one when none) speaks device protocol version 2,
 * and so takes `--v1-share`; one from before version 2 speaks version 1 only, and refuses the option.
 */
function speaksV2(root: string | undefined): boolean {
  const sim = readFileSync(join(root ?? process.cwd(), 'src', 'bin', 'sim.ts'), 'utf8');
  return sim.includes('v1-share');
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
export const benchEmail = (i: number): string => `bench-${i}@example.com`;
export const benchKey = (i: number): string => `bench-api-key-${hex(i, 6)}`;

export function rigSeed(options: RigOptions): { seed: Seed; locks: RigLock[] } {
  const seed: Required<Pick<Seed, 'accounts' | 'api_keys' | 'access_points' | 'locks' | 'webhooks'>> = {
    accounts: [],
    api_keys: [],
    access_points: [],
    locks: [],
    webhooks: [],
  };
  const locks: RigLock[] = [];
  for (let a = 0; a < options.accounts; a++) {
    const email = benchEmail(a);
    seed.accounts.push({
      email,
      password: a === 0 && options.password !== undefined ? options.password : null,
      verified: true,
    });
    seed.api_keys.push({ account: email, key: benchKey(a) });
    if (options.webhookUrl !== undefined)
      seed.webhooks.push({ account: email, url: options.webhookUrl, method: 'POST' });
    for (let p = 0; p < options.accessPointsPerAccount; p++) {
      const ap = a * options.accessPointsPerAccount + p;
      const apId = `a0000000-0000-4000-8000-${hex(ap, 12)}`;
      seed.access_points.push({
        id: apId,
        account: email,
        name: `AP ${ap}`,
        secret: `bench-ap-secret-${hex(ap, 8)}`,
      });
      for (let l = 0; l < options.locksPerAccessPoint; l++) {
        const n = ap * options.locksPerAccessPoint + l;
        const deviceId = `b0000000-0000-4000-8000-${hex(n, 12)}`;
        seed.locks.push({ device_id: deviceId, owner: email, access_point_id: apId, latency_ms: 0 });
        locks.push({ deviceId, key: benchKey(a), account: a });
      }
    }
  }
  return { seed, locks };
}

export async function startRig(options: RigOptions, extraFlags: readonly string[] = []): Promise<Rig> {
  const dir = tempDir();
  const { seed, locks } = rigSeed(options);
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seed));
  const mosquitto = options.broker === 'mosquitto' ? await startMosquitto() : undefined;
  const flags = [
    '--data',
    join(dir, 'data'),
    '--seed',
    seedFile,
    '--rate-limits',
    hugeRateLimits(dir, options.serverRoot?.limitedEndpoints),
    '--no-simulator',
  ];
  if (mosquitto) flags.push('--mqtt-url', mosquitto.url);
  progress(`starting lockcloud over the ${options.broker} broker with ${locks.length} locks`);
  if (PROFILE_DIR !== undefined) mkdirSync(PROFILE_DIR, { recursive: true });
  const profileDir =
    PROFILE_DIR === undefined ? undefined : mkdtempSync(join(PROFILE_DIR, `${options.broker}-`));
  const server = await startLockcloud([...flags, ...extraFlags], {
    nodeFlags: profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    ...(options.serverRoot === undefined ? {} : { root: options.serverRoot.dir }),
  });
  // A server of another tree gets that tree's simulator: the device protocol has moved since.
  const sim = startSim(
    seedFile,
    server.mqttUrl,
    options.v1Devices === true && speaksV2(options.serverRoot?.dir) ? ['--v1-share', '1'] : [],
    options.serverRoot?.dir,
  );
  await sim.waitFor(/connected to/, 120_000, 'lockcloud sim to connect');
  const client = new HttpClient(server.url, 16);
  const sample = locks.filter((_, i) => i % Math.max(1, Math.floor(locks.length / 50)) === 0);
  await until('the simulated locks to read responsive', 120_000, async () => {
    const states = await Promise.all(
      sample.map((l) =>
        client.json<{ responsive: boolean }>('GET', `/public/lock/${l.deviceId}`, { authorization: l.key }),
      ),
    );
    return states.every((s) => s.responsive);
  });
  client.close();
  return {
    server,
    sim,
    locks,
    email: benchEmail,
    async stop(per) {
      await sim.stop();
      await server.stop();
      await mosquitto?.stop();
      if (profileDir === undefined) return undefined;
      return profileSection(
        profileDir,
        `CPU profile of the server (${options.broker} broker), ${basename(process.argv[1] ?? '')}`,
        server.startupMs,
        Number.POSITIVE_INFINITY,
        per,
      );
    },
  };
}
