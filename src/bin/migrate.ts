/**
 * `npm run migrate` / `lockcloud migrate`: brings the configured store's schema to the latest version
 * (PostgreSQL at --database-url or DATABASE_URL, else SQLite in --data or LOCKCLOUD_DATA) and names
 * the migrations it applied. The server migrates on start as well; this is for deploys that migrate
 * once before starting their processes, or want to see a new version's schema change apart.
 *
 * Exit codes: 0 migrated or already up to date, 1 the migration failed (the reason on stderr), 2 a
 * usage or configuration error.
 */
import { statSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, secretInputs } from '../config/config.ts';
import { secretScrubber } from '../config/redact.ts';
import { describeStore, migrateStore } from '../open-store.ts';

class UsageError extends Error {
  override name = 'UsageError';
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The driver's reason: connection failures to a name with several addresses come as an AggregateError. */
function reason(error: unknown): string {
  if (error instanceof AggregateError && error.message === '')
    return error.errors.map((e: unknown) => reason(e)).join('; ');
  if (error instanceof Error) return error.message || ((error as { code?: string }).code ?? error.name);
  return String(error);
}

async function run(opts: { data?: string; databaseUrl?: string }): Promise<void> {
  const argv = [
    ...(opts.data === undefined ? [] : ['--data', opts.data]),
    ...(opts.databaseUrl === undefined ? [] : ['--database-url', opts.databaseUrl]),
  ];
  // The server's own configuration, so the flags and variables mean here what they mean there.
  const config = loadConfig(process.env, argv);
  // SQLite would make a missing directory: a mistyped path must not become an empty database.
  if (config.databaseUrl === undefined && !isDirectory(config.dataDir))
    throw new UsageError(`no data directory at ${config.dataDir} (pass --data DIR or set LOCKCLOUD_DATA)`);
  const where = describeStore(config);
  let applied: string[];
  try {
    applied = await migrateStore(config);
  } catch (error) {
    throw new Error(`cannot migrate ${where}: ${reason(error)}`, { cause: error });
  }
  const lines =
    applied.length === 0
      ? [`${where} is already up to date`]
      : [`applied ${applied.length} migration(s) to ${where}:`, ...applied.map((name) => `  ${name}`)];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs the command; resolves to the process exit code. */
export async function migrate(argv: readonly string[]): Promise<number> {
  const program = new Command('lockcloud migrate')
    .description("Bring the store's schema to the latest version, and name the migrations applied.")
    .option('--data <dir>', 'the data directory of the SQLite store (env LOCKCLOUD_DATA; default ./data)')
    .option('--database-url <url>', 'a PostgreSQL database instead (env DATABASE_URL)')
    .addHelpText(
      'after',
      '\nExit codes:\n  0  migrated, or already up to date\n  1  the migration failed, or the database is unreachable (the reason on stderr)\n  2  usage or configuration error\n',
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false)
    .action((opts: { data?: string; databaseUrl?: string }) => run(opts));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its own message (or the help asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    // A driver's reason may echo the database URL it was given: never its password.
    const scrub = secretScrubber(secretInputs(process.env, argv));
    process.stderr.write(`lockcloud migrate: ${scrub((error as Error).message)}\n`);
    return error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
  }
}

process.exitCode = await migrate(process.argv.slice(2));
