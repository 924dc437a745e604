/** Mosquitto processes of a test's own, on free loopback ports (never the machine's 1883). */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.ts';

export const MOSQUITTO_BIN = '/usr/sbin/mosquitto';

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null || address.port === 1883) return freePort();
  return address.port;
}

/** A Mosquitto of the test's own on a loopback port: anonymous, nothing persisted. */
export class OwnMosquitto {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'lockcloud-mosquitto-'));
  private log = '';

  constructor(readonly port: number) {
    writeFileSync(
      join(this.dir, 'mosquitto.conf'),
      `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n`,
    );
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(MOSQUITTO_BIN, ['-c', join(this.dir, 'mosquitto.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.log += chunk.toString();
    });
    this.child = child;
    await eventually(
      `mosquitto to listen on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`mosquitto exited ${child.exitCode}`);
        return portOpen(this.port);
      },
      { everyMs: 25 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${this.log}`);
    });
  }

  /** kill -9, and wait until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: the process stays, its connections stay open, and nothing answers (a hung broker). */
  async pause(): Promise<void> {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT after pause(). */
  async resume(): Promise<void> {
    this.child?.kill('SIGCONT');
  }

  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
