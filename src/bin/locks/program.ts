/** The commander program of `lockcloud locks`, and `locks`, which runs it on arguments to an exit code. */
import { InvalidArgumentError, Option, Command as Program } from 'commander';
import { command, list } from './commands.ts';
import { DEFAULT_URL } from './context.ts';
import type { EventsOptions } from './events.ts';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from './exit-codes.ts';
import { addGrantCommands } from './grants.ts';
import { autoLockSeconds, type SetOptions, set, status, wholeNumber } from './health.ts';
import { addKeyCommands } from './keys.ts';
import { NAME } from './output.ts';
import { watch } from './watch.ts';

function seconds(what: string, minimum: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < minimum)
      throw new InvalidArgumentError(`${what} must be a number of seconds, at least ${minimum}.`);
    return n;
  };
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number, at least 1.');
  return n;
}

function program(): Program {
  const root = new Program(NAME)
    .description(
      "Talk to a lockcloud server: list locks, read their status and health, change their settings, lock, unlock, sync, watch, read the event log, manage a lock's grants, answer invitations, manage API keys.",
    )
    .option('--url <url>', `the server's base URL (env LOCKCLOUD_URL; default ${DEFAULT_URL})`)
    .option('--key <key>', 'the API key (env LOCKCLOUD_API_KEY)')
    .option('--json', 'machine-readable output on stdout')
    .option(
      '--retry',
      'on DEVICE_IS_BUSY n, try again as soon as the lock is free (n s at most); on THROTTLED, after the wait the server asks (within 30 s in all); lock, unlock and sync then send an Idempotency-Key, so a command whose answer was lost is sent again without acting twice',
    )
    .addOption(
      new Option('--request-timeout <seconds>', 'give up on a request that gets no answer')
        .argParser(seconds('--request-timeout', 0.1))
        .default(30),
    )
    .addHelpText('afterAll', EXIT_CODES_HELP)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);

  root
    .command('list')
    .description("the account's locks, owned and shared: device id, nickname, role, state, battery, door")
    .action((_opts: unknown, cmd: Program) => list(cmd));

  root
    .command('status')
    .description(
      "a lock's full picture: locked, battery and its state, responsive, jammed, door, last seen, firmware; for its owner auto-lock, battery thresholds and the access point",
    )
    .argument('<device_id>')
    .action((id: string, _opts: unknown, cmd: Program) => status(id, cmd));

  root
    .command('set')
    .description("change a lock's settings (its owner only), then show it as status does")
    .argument('<device_id>')
    .option('--nickname <name>', "the lock's name (1 to 128 characters)")
    .option(
      '--auto-lock <seconds>',
      'relock this many seconds after every unlock (at most 3600), or off (needs device protocol 2)',
      autoLockSeconds,
    )
    .option(
      '--battery-low <percent>',
      'the battery is low under this (2 to 100; default 20)',
      wholeNumber('--battery-low', 'a whole number'),
    )
    .option(
      '--battery-critical <percent>',
      'the battery is critical under this (1 to 99, under --battery-low; default 10)',
      wholeNumber('--battery-critical', 'a whole number'),
    )
    .action((id: string, opts: SetOptions, cmd: Program) => set(id, opts, cmd));

  for (const name of ['lock', 'unlock', 'sync'] as const) {
    root
      .command(name)
      .description(
        name === 'sync'
          ? 'ask the lock for its real state, and wait for the answer'
          : `${name} the lock, and wait until it confirms`,
      )
      .argument('<device_id>')
      .addOption(
        new Option('--timeout <seconds>', 'how long to wait for the task')
          .argParser(seconds('--timeout', 0.1))
          .default(30),
      )
      .option(
        '--idempotency-key <key>',
        'send this Idempotency-Key: the same key within 24 h answers the first task instead of acting again (1 to 255 visible ASCII characters)',
      )
      .action((id: string, opts: { timeout: number; idempotencyKey?: string }, cmd: Program) =>
        command(name, id, opts, cmd),
      );
  }

  root
    .command('watch')
    .description("print a line per change of a lock's locked, battery or responsive (Ctrl-C ends)")
    .addOption(
      new Option('--interval <seconds>', 'seconds between polls')
        .argParser(seconds('--interval', 0.1))
        .default(2),
    )
    .option('--once', 'print the current state of every lock and stop')
    .addOption(new Option('--count <n>', 'stop after n changes').argParser(positiveInteger).conflicts('once'))
    .action((opts: { interval: number; once?: boolean; count?: number }, cmd: Program) => watch(opts, cmd));

  root
    .command('events')
    .description(
      "the account's event log, newest first (--follow: the events as they happen, until Ctrl-C); also `lockcloud events`",
    )
    .option('--device <device_id>', "only this lock's events")
    .option('--type <prefix>', 'only this type, or types starting with it (lock., command.failed)')
    .addOption(
      new Option('--limit <n>', 'how many of the latest events (without --follow)')
        .argParser(positiveInteger)
        .default(20),
    )
    .option('--follow', 'print each new event as it happens (a line per event), until Ctrl-C')
    // Loaded when asked for: the other commands start without it (and the event words).
    .action(async (opts: EventsOptions, cmd: Program) => (await import('./events.ts')).events(opts, cmd));

  // Also `lockcloud grants ...`, `lockcloud invitations ...`, `lockcloud keys ...` (cli.ts).
  addGrantCommands(root);
  addKeyCommands(root);
  return root;
}

/** Runs the CLI on these arguments; resolves to the exit code (no process.exit: output is flushed). */
export async function locks(argv: readonly string[]): Promise<number> {
  try {
    // An action either completes (exit 0) or throws what exitCodeOf maps.
    await program().parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return exitCodeOf(error);
  }
}
