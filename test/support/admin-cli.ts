/** The admin CLI as a separate process, for tests of its output and exit codes. */
import { type Run, startCli } from './cli.ts';

export type { Run };

/**
 * Runs `lockcloud admin ARGS` with no standard input. The data directory and topic prefix come only
 * from the arguments or `extraEnv`: the caller's environment must not choose them.
 */
export function runAdmin(
  args: readonly string[],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<Run> {
  return startCli(args, {
    entry: ['--import', 'tsx', 'src/bin/admin.ts'],
    env: { LOCKCLOUD_DATA: undefined, LOCKCLOUD_MQTT_PREFIX: undefined, ...extraEnv },
  }).done;
}
