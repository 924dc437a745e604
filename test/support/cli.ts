/**
 * A command-line client (`lockcloud locks`, `lockcloud events`, `lockcloud admin`, ...) as a
 * subprocess with no standard input and stdout and stderr piped (no TTY), for tests of what it
 * prints, its exit codes and how it stops.
 */
import { spawn } from 'node:child_process';

/** How a finished client ended, and all it printed. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started client: its output so far, a signal, and its end. */
export interface Running {
  readonly done: Promise<Run>;
  stdout(): string;
  stderr(): string;
  kill(signal: NodeJS.Signals): void;
}

export interface CliOptions {
  /** Laid over process.env; undefined removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The arguments before `args`; by default tsx and src/bin/locks.ts. */
  readonly entry?: readonly string[];
  /** The program; by default this Node. */
  readonly program?: string;
}

export function startCli(args: readonly string[], options: CliOptions = {}): Running {
  const entry = options.entry ?? ['--import', 'tsx', 'src/bin/locks.ts'];
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(options.program ?? process.execPath, [...entry, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { done, stdout: () => stdout, stderr: () => stderr, kill: (signal) => child.kill(signal) };
}
