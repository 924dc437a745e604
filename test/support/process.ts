/**
 * Runs lockcloud as a separate process, exactly as `npm start` does, for tests that must kill it
 * (kill -9) or read what it prints.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServerProcess {
  readonly url: string;
  /** The metrics listener's URL, when started with `--metrics-port` (serve prints it). */
  readonly metricsUrl: string | undefined;
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * How long a server process may take to print that it listens. Under the system tier's load on a
 * slow machine a start took more than 30 s (the banner had not come when the old bound ran out), so
 * the bound is wide: it is there to end a start that hangs, not to time one.
 */
const START_SECONDS = 120;

export async function startProcess(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/bin/serve.ts', '--port', '0', '--mqtt-port', '0', ...args],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    // A start that fails here kills the process: left running, it kept the test file's process alive
    // after the test had failed, and the CI run waited on it for good (the system tier, 2026-12-02).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${START_SECONDS} s:\n${out}\n${err}`));
    }, START_SECONDS * 1000);
    const check = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  // Printed in the same write as the base URL.
  const metricsUrl = /^ {2}metrics:\s+(http:\/\/\S+)/m.exec(out)?.[1];
  return {
    url,
    metricsUrl,
    child,
    stdout: () => out,
    stderr: () => err,
    async kill9() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/**
 * A crash of a server the test did not stop is told with everything the process wrote, so a fault
 * test that kills a backend shows why the server died rather than only that requests failed.
 * The returned function marks the stop that follows as the test's own.
 */
export function reportUnexpectedExit(server: ServerProcess): () => void {
  let stopping = false;
  server.child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(`lockcloud exited ${code ?? signal}:\n${server.stderr()}\n${server.stdout()}\n`);
  });
  return () => {
    stopping = true;
  };
}
