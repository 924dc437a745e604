/**
 * A PostgreSQL 15 server of a test's own, on a free loopback port in a temporary directory (never
 * the machine's 5432), for tests that must stop, restart or kill -9 the database under a running
 * lockcloud. Trust authentication, fsync off: the data only has to outlive a restart or a kill -9 of the server
 * (the OS keeps what was written), not a power cut. Commits stay synchronous: a kill -9 loses none.
 * As root the server runs as the `postgres` OS user (PostgreSQL refuses to run as root).
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually } from './eventually.ts';
import { freePort, portOpen } from './mosquitto.ts';

export const PG_BIN = process.env.LOCKCLOUD_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the postgres OS user when we are root. */
async function pgTool(tool: string, args: readonly string[]): Promise<string> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args]]
    : [join(PG_BIN, tool), [...args]];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
}

async function postgresUid(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class OwnPostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** initdb in a new temporary directory and start the server; resolves once it accepts connections. */
  static async create(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-pg-'));
    let port = await freePort();
    while (port === 5432) port = await freePort();
    const server = new OwnPostgres(port, dir);
    try {
      if (asRoot) {
        const { uid, gid } = await postgresUid();
        chownSync(dir, uid, gid);
      }
      await pgTool('initdb', [
        '-D',
        server.dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--no-sync',
        '-E',
        'UTF8',
      ]);
      await server.start();
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** The server's log so far (for failure messages). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      "-c listen_addresses='127.0.0.1'",
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=50',
    ].join(' ');
    // After a kill -9 the old backends notice their postmaster is gone within moments; until they
    // have, the shared memory is still theirs and a new postmaster refuses to start: try again.
    let failure: unknown;
    await eventually(
      'postgres to start',
      async () => {
        try {
          await pgTool('pg_ctl', [
            '-D',
            this.dataDir,
            '-o',
            options,
            '-l',
            join(this.dir, 'server.log'),
            '-w',
            '-t',
            '60',
            'start',
          ]);
          return true;
        } catch (error) {
          failure = error;
          return false;
        }
      },
      { timeoutMs: 15_000, everyMs: 500 },
    ).catch(() => {
      throw new Error(`postgres did not start: ${(failure as Error).message}\n${this.log()}`);
    });
    await this.waitAccepting();
  }

  /** Resolves once a query succeeds. */
  private async waitAccepting(): Promise<void> {
    let failure: unknown;
    await eventually(
      'postgres to accept a query',
      async () => {
        const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 2000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } catch (error) {
          failure = error;
          return false;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      { timeoutMs: 60_000, everyMs: 100 },
    ).catch(() => {
      throw new Error(`postgres not accepting: ${(failure as Error).message}`);
    });
  }

  /** `pg_ctl stop -m fast`: sessions are ended, the server shuts down cleanly. */
  async stop(): Promise<void> {
    if (!(await portOpen(this.port))) return;
    await pgTool('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', 'stop']);
  }

  /** The postmaster's pid, from its pid file; undefined when none is running. */
  private postmasterPid(): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** kill -9 of the postmaster (a crash): no shutdown, crash recovery at the next start. */
  async kill9(): Promise<void> {
    const pid = this.postmasterPid();
    if (pid === undefined) return;
    process.kill(pid, 'SIGKILL');
    await eventually(
      `postgres ${pid} to be gone after kill -9`,
      async () => !alive(pid) && !(await portOpen(this.port)),
      { everyMs: 25 },
    );
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops the server (immediately: nothing to keep) and removes its directory. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.postmasterPid() !== undefined)
      await pgTool('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(async () => {
        const pid = this.postmasterPid();
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
