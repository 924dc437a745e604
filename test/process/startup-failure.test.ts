/**
 * Issue 18 point 6: a start-up that fails at any step closes whatever it had opened, last opened
 * first (src/closers.ts), and the process exits by itself with a one-line reason and its exit code
 * (docs/deploy.md, "When the start fails"): 2 for a start-up condition, 1 for an unexpected error.
 *
 * Each step is made to fail for real where it can be: a corrupt seed, a data directory that cannot
 * be written, a file that is not a database, a migration that cannot apply, PostgreSQL, Redis or a
 * broker that is not there, a broker port or API port or metrics port already taken, a trigger that
 * fails the seed's first insert, a server key that no longer opens the simulated devices' secrets.
 * Only building the HTTP front has no real failure to provoke: a logger fastify refuses stands in.
 *
 * In process, after createServer() or listen() rejects: no handle left (process.
 * getActiveResourcesInfo() as before), the ports can be bound again, SQLite's -wal and -shm files are
 * gone (the file was closed), no Redis subscriber and no PostgreSQL connection remain. As a child
 * process (`lockcloud serve`): it exits by itself with the code and message, with nothing left open.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus.ts';
import { SeedError } from '../../src/app/seed/validate.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, StartupError } from '../../src/main.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import {
  cheapPasswords,
  dirs,
  type Failure,
  newAttempt,
  releaseTaken,
  silentFlags,
  startupSteps,
} from './startup-steps.ts';

/** The handles (sockets, servers, timers) that keep this process alive. */
const handles = (): string[] => process.getActiveResourcesInfo().sort();
/** The test process's own, before any server: what must be left after each failed start. */
let baseline: string[];
let db: TestDatabase;
const STEPS = startupSteps(() => db);

/**
 * Asserts the process holds nothing but the baseline. A socket whose close was under way when
 * the error came (pg reports a refused connection, and ends a pooled one, before its socket is
 * gone) gets a moment to finish; a leak never does, and a timer of a second or more (a reconnection,
 * a disconnect timeout) is still there at the end of that moment.
 */
async function assertNothingLeft(): Promise<void> {
  const until = Date.now() + 500;
  while (JSON.stringify(handles()) !== JSON.stringify(baseline) && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(handles(), baseline, 'a handle was left open');
}

async function bindable(port: number): Promise<void> {
  const server = createNetServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
}

/** SQLite's -wal and -shm files stay beside the database while a connection to it is open. */
function assertSqliteClosed(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  const left = readdirSync(dataDir).filter((name) => /-(wal|shm)$/.test(name));
  assert.deepEqual(left, [], `SQLite still open in ${dataDir}`);
}

/** No file under `dir` open in this process (Linux: /proc/self/fd), such as the SQLite file. */
function assertNoOpenFile(dir: string): void {
  if (!existsSync('/proc/self/fd')) return;
  const open = readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return []; // closed meanwhile (the directory listing's own descriptor)
    }
  });
  assert.deepEqual(open, [], 'a file of the data directory is still open');
}

function assertError(error: unknown, failure: Failure): void {
  if (failure.kind === 'unexpected')
    assert.ok(
      error instanceof Error && !(error instanceof StartupError) && !(error instanceof SeedError),
      String(error),
    );
  else assert.ok(error instanceof failure.kind, String(error));
  assert.match((error as Error).message, failure.message);
}

before(async () => {
  db = await createTestDatabase();
  // prom-client's process-wide collectors start with the first server and stay: not a server's.
  new PrometheusMetrics({ connectedAccessPoints: async () => 0 });
  baseline = handles();
});
after(async () => {
  await releaseTaken();
  await db.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a failed start closes what it had opened (in process)', () => {
  for (const step of STEPS) {
    it(`${step.step}: ${step.opened} closed`, async () => {
      const a = await newAttempt();
      const failure = await step.prepare(a);
      const config = loadConfig(failure.env ?? {}, [...a.flags, ...silentFlags, ...(failure.flags ?? [])]);
      const error = await (async () => {
        const server = await createServer(config, {
          passwords: cheapPasswords,
          ...(failure.logger === undefined ? {} : { logger: failure.logger }),
        });
        try {
          await server.listen();
        } catch (listenError) {
          return listenError;
        }
        await server.close();
        return undefined;
      })().catch((startError: unknown) => startError);
      assertError(error, failure);
      await releaseTaken();
      await assertNothingLeft();
      for (const port of [a.apiPort, a.mqttPort, a.metricsPort]) await bindable(port);
      assertSqliteClosed(a.dataDir);
      assertNoOpenFile(a.dir);
      await failure.gone?.();
    });
  }
});

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
}

/** `lockcloud serve` until it exits by itself; killed (and failed) if it has not within 60 s. */
function serveUntilExit(args: readonly string[], env: Readonly<Record<string, string>>): Promise<Exit> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/serve.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not exit by itself:\n${stderr}`));
    }, 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('a failed start ends the process by itself, with its reason and exit code', () => {
  for (const step of STEPS.filter((s) => s.child !== false)) {
    it(step.step, async () => {
      const a = await newAttempt();
      const failure = await step.prepare(a);
      const { code, stderr } = await serveUntilExit(
        [...a.flags, '--host', '127.0.0.1', ...(failure.flags ?? [])],
        failure.env ?? {},
      );
      if (failure.kind === 'unexpected') {
        assert.equal(code, 1, stderr);
        assert.match(stderr, /^lockcloud: failed to start\n/, stderr);
      } else {
        assert.equal(code, 2, stderr);
        // The reason (a seed's problems, one a line), no stack.
        assert.match(stderr, /^lockcloud: \S/, stderr);
        assert.doesNotMatch(stderr, /^\s+at /m, stderr);
      }
      assert.match(stderr, failure.message);
      assert.doesNotMatch(stderr, /still open after the failed start/);
      await releaseTaken();
      for (const port of [a.apiPort, a.mqttPort, a.metricsPort]) await bindable(port);
      assertSqliteClosed(a.dataDir);
      await failure.gone?.();
    });
  }
});
