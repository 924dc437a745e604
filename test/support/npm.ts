/**
 * Child npm and node processes for the pack tests (test/sdk/pack.test.ts, test/package/pack.test.ts),
 * with an environment that does not point them back at this repository.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment of a child npm or node. Run under `npm test`, this process carries npm's own
 * variables: where the project is (`npm_config_local_prefix`, `npm_package_*`, ...) would point the
 * child at this repository, so they go; the user's npm settings (`npm_config_registry`, `_cafile`,
 * proxies) stay. The test runner's mark on its own child processes (`NODE_TEST_CONTEXT`) goes too:
 * it would make a `node --test` run in the child report to a runner that is not there.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const location = /^npm_config_(?:local_prefix|prefix|global_prefix|user_agent|npm_version|init_module)$/i;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        k !== 'NODE_TEST_CONTEXT' && (!/^npm_/i.test(k) || (/^npm_config_/i.test(k) && !location.test(k))),
    ),
  );
  return {
    ...env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

/**
 * Runs a program to its end; a failure throws with what it printed.
 *
 * The program and whatever it starts (npx's bin, `node --test`'s process for the file) run in a
 * process group of their own. `timeoutMs` guards against a hang, it is no measure of speed: these
 * steps take seconds on a quiet machine and many times that on a CI machine running the system
 * tier's other files beside them. Past it, every Node process of the group writes a diagnostic
 * report (`--report-on-signal`), whose handles that keep a process alive go into the error, and
 * then the whole group is killed, not just the program started here.
 */
export async function sh(
  what: string,
  file: string,
  args: string[],
  cwd: string,
  env = cleanEnv(),
  timeoutMs = 300_000,
): Promise<{ stdout: string; stderr: string }> {
  const reports = mkdtempSync(join(tmpdir(), 'lockcloud-sh-reports-'));
  const nodeOptions = [
    env.NODE_OPTIONS,
    '--report-on-signal',
    '--report-signal=SIGUSR2',
    `--report-directory="${reports}"`,
  ]
    .filter(Boolean)
    .join(' ');
  const child = spawn(file, args, {
    cwd,
    env: { ...env, NODE_OPTIONS: nodeOptions },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, signal) => resolve({ code, signal }));
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const first = await Promise.race([ended, timedOut]);
    let why: string;
    if (first === 'timeout') {
      why = `still running after ${timeoutMs / 1000} s, killed\n${await handlesOf(child, reports)}`;
      signalGroup(child, 'SIGKILL');
      await ended;
    } else if (first.error) why = first.error.message;
    else if (first.code === 0) return { stdout, stderr };
    else why = `exit ${first.code ?? first.signal}`;
    throw new Error(`${what} failed: ${why}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  } finally {
    clearTimeout(timer);
    rmSync(reports, { recursive: true, force: true });
  }
}

/** Signals a child started with `detached: true` and everything it started (its process group). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

interface NodeReport {
  header?: { commandLine?: string[]; processId?: number };
  libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; [k: string]: unknown }[];
}

/**
 * Asks every Node process of the child's group for a diagnostic report and lists, for each, what
 * keeps its event loop alive (active, referenced libuv handles: sockets with their ends, timers
 * with their due time, child processes): what a hang is waiting for.
 */
async function handlesOf(child: ChildProcess, reports: string): Promise<string> {
  signalGroup(child, 'SIGUSR2');
  // Each process writes its report at its next turn of the event loop: give them a few seconds.
  for (let waited = 0; waited < 5_000 && readdirSync(reports).length === 0; waited += 250)
    await new Promise((resolve) => setTimeout(resolve, 250));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const lines: string[] = [];
  for (const name of readdirSync(reports)) {
    try {
      const report = JSON.parse(readFileSync(join(reports, name), 'utf8')) as NodeReport;
      const keeping = (report.libuv ?? []).filter((h) => h.is_active && h.is_referenced);
      lines.push(
        `--- node process ${report.header?.processId} (${(report.header?.commandLine ?? []).join(' ')}): ` +
          `${keeping.length} handles keep it alive`,
        ...keeping.map((h) => {
          const { type, is_active: _active, is_referenced: _referenced, address: _address, ...details } = h;
          return `  ${type} ${JSON.stringify(details)}`;
        }),
      );
    } catch (error) {
      lines.push(`--- ${name}: not read (${(error as Error).message})`);
    }
  }
  return lines.length > 0 ? lines.join('\n') : '(no Node process wrote a diagnostic report)';
}
