/**
 * Every test file's tier, decided by what it starts:
 *
 * - unit: nothing outside the test's own process. No socket (no server, no connection: no
 *   PostgreSQL, Redis or broker), no child process. SQLite files in a temporary directory are fine
 *   (a library, not a server). Seconds in all: `npm run test:unit`.
 * - integration: sockets in the test's process: lockcloud on a random port (test/support/server.ts),
 *   its embedded broker, webhook receivers, and the machine's PostgreSQL, Redis and Mosquitto. No
 *   child process. `npm run test:integration`.
 * - system: child processes: lockcloud or its CLIs as processes, Mosquitto, Redis or PostgreSQL
 *   servers of the test's own, Chromium, the cluster, the reliability suite. `npm run test:system`.
 *
 * The longest entry that starts a file's path gives its tier (a file over its folder). A file in no
 * tier stops scripts/run-tests.mjs before anything runs, and test/unit/tiers.test.ts fails; a
 * unit-tier file that opens a socket or starts a process, or an integration-tier file that starts a
 * process, fails (test/support/tier-guard.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const TIERS = ['unit', 'integration', 'system'] as const;
export type Tier = (typeof TIERS)[number];

export const TIER_OF: Readonly<Record<string, Tier>> = {
  'test/unit/': 'unit',
  'test/docs/': 'unit',
  'test/fuzz/shapes.test.ts': 'unit',
  'test/rate-limit/memory.test.ts': 'unit',
  'test/rate-limit/rate-limits.test.ts': 'unit',
  'test/rate-limit/rate-limits-doc.test.ts': 'unit',
  'test/sdk/package.test.ts': 'unit',
  // compose.yaml read and checked, nothing run.
  'test/image/compose-file.test.ts': 'unit',
  'test/sdk/types.test.ts': 'unit',

  'test/authz/': 'integration',
  'test/dashboard/': 'integration',
  'test/events/': 'integration',
  'test/devices/': 'integration',
  'test/fuzz/': 'integration',
  'test/http/': 'integration',
  'test/rate-limit/': 'integration',
  'test/sdk/': 'integration',
  'test/security/': 'integration',
  'test/stores/': 'integration',

  'test/cluster/': 'system',
  // startLockcloud in the test's process, and a child process that must exit by itself after close().
  'test/fake/': 'system',
  // buildah building the container image and running it.
  'test/image/': 'system',
  // npm pack and install, lockcloud's bin as a process.
  'test/package/': 'system',
  'test/process/': 'system',
  'test/reliability/': 'system',
  // Chromium.
  'test/dashboard/browser-': 'system',
  // `lockcloud admin` as a process.
  'test/devices/admin-devices-cli.test.ts': 'system',
  // A lockcloud process, its RSS read from /proc.
  'test/devices/broker-memory.test.ts': 'system',
  // Mosquitto processes of its own, stopped and started.
  'test/devices/broker-restart.test.ts': 'system',
  // A Mosquitto process configured by `lockcloud admin mqtt-acl`.
  'test/devices/mosquitto-acl.test.ts': 'system',
  // The real mosquitto_passwd.
  'test/devices/mosquitto-passwd.test.ts': 'system',
  // `lockcloud sim` as a process.
  'test/devices/sim-process.test.ts': 'system',
  'test/devices/sim-backoff.test.ts': 'system',
  // A lockcloud process killed mid-delivery.
  'test/http/webhooks/crash.test.ts': 'system',
  // Redis servers of its own, killed and restarted.
  'test/events/redis-event-bus-restart.test.ts': 'system',
  'test/rate-limit/redis-event-bus.test.ts': 'system',
  'test/rate-limit/redis-fallback.test.ts': 'system',
  // The README's example run by node.
  'test/sdk/readme-example.test.ts': 'system',
  // npm pack, npm install and tsc into a project of its own, then node running the example.
  'test/sdk/pack.test.ts': 'system',
  // Lockcloud processes and `lockcloud admin`, their output scanned; pg_dump.
  'test/security/secrets-postgres.test.ts': 'system',
  'test/security/secrets-sqlite.test.ts': 'system',
};

/** The tier of a test file (a path relative to the repository, `/` separated), if it has one. */
export function tierOf(file: string): Tier | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(TIER_OF)) {
    if (file.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : TIER_OF[best];
}

/** Every test file under `dir` (`*.test.ts`), sorted, relative to the repository. */
export function testFiles(dir = 'test'): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}
