/** The admin CLI as a separate process, for tests of its output and exit codes. */
import { spawn } from 'node:child_process';

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `lockcloud admin ARGS` with no standard input. The data directory and topic prefix come only
 * from the arguments or `extraEnv`: the caller's environment must not choose them.
 */
export function runAdmin(
  args: readonly string[],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.LOCKCLOUD_DATA;
  delete env.LOCKCLOUD_MQTT_PREFIX;
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/admin.ts', ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end('');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
