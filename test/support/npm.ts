/**
 * Child npm and node processes for the pack tests (test/sdk/pack.test.ts, test/package/pack.test.ts),
 * with an environment that does not point them back at this repository.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

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

/** Runs a program to its end; a failure throws with what it printed. */
export async function sh(
  what: string,
  file: string,
  args: string[],
  cwd: string,
  env = cleanEnv(),
  timeoutMs = 120_000,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 << 20 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${what} failed: ${e.message}\n--- stdout\n${e.stdout ?? ''}\n--- stderr\n${e.stderr ?? ''}`,
    );
  }
}
