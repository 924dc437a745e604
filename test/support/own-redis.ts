/**
 * A redis-server of a test's own on a free loopback port (never the machine's 6379), nothing
 * persisted, for tests that stop, restart or kill -9 Redis under a running lockcloud.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { eventually } from './eventually.ts';
import { freePort, portOpen } from './mosquitto.ts';

export const REDIS_SERVER_BIN = process.env.LOCKCLOUD_TEST_REDIS_SERVER ?? 'redis-server';

export class OwnRedis {
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(readonly port: number) {}

  static async create(): Promise<OwnRedis> {
    let port = await freePort();
    while (port === 6379) port = await freePort();
    const redis = new OwnRedis(port);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) => {
        this.log += chunk.toString();
      });
    this.child = child;
    await eventually(
      `redis-server to listen on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited ${child.exitCode}`);
        return portOpen(this.port);
      },
      { everyMs: 25 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${this.log}`);
    });
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** SIGTERM: Redis closes its clients and exits (nothing to save). */
  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  /** kill -9: the connections drop without a word. */
  kill9(): Promise<void> {
    return this.end('SIGKILL');
  }

  async dispose(): Promise<void> {
    await this.kill9();
  }
}
