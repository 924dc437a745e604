/**
 * `lockcloud [command] [arguments]`: the package's command. bin/lockcloud.js runs the compiled copy
 * of this file (dist/src/bin/cli.js); the tests run it through tsx. Each command is a module of its
 * own that runs when loaded, so only the one named is loaded: `lockcloud locks` does not load the
 * server, and `--version` loads nothing at all.
 */
import { VERSION } from '../version.ts';

interface Entry {
  readonly summary: string;
  readonly load: () => Promise<unknown>;
}

/** Literal specifiers, so the compiler rewrites them to the built `.js` files. */
const COMMANDS: Readonly<Record<string, Entry>> = {
  serve: {
    summary: 'run the server: the v1 and v3 APIs, the sandbox, the dashboard (the default)',
    load: () => import('./serve.ts'),
  },
  sim: {
    summary: 'run simulated access points and locks against an MQTT broker',
    load: () => import('./sim.ts'),
  },
  admin: {
    summary: 'change accounts, locks, webhooks and blocks in a data directory',
    load: () => import('./admin.ts'),
  },
  migrate: {
    summary: "bring the store's schema to the latest version",
    load: () => import('./migrate.ts'),
  },
  locks: {
    summary: "drive a server's v3 API: list, status, lock, unlock, sync, watch, events",
    load: () => import('./locks.ts'),
  },
  events: {
    summary: "read a server's event log, or follow it live (`lockcloud locks events`)",
    load: () => import('./locks.ts'),
  },
  grants: {
    summary: "a lock's grants to other accounts: list, invite, edit, revoke (`lockcloud locks grants`)",
    load: () => import('./locks.ts'),
  },
  invitations: {
    summary: "invitations to other accounts' locks: list, accept, decline (`lockcloud locks invitations`)",
    load: () => import('./locks.ts'),
  },
  keys: {
    summary: "the account's API keys: list, create, delete (`lockcloud locks keys`)",
    load: () => import('./locks.ts'),
  },
};

/** The commands that are `lockcloud locks COMMAND`: one program, its options and exit codes. */
const LOCKS_COMMANDS = new Set(['events', 'grants', 'invitations', 'keys']);

function help(): string {
  const width = '-V, --version'.length + 2;
  const line = (name: string, text: string) => `  ${name.padEnd(width)}${text}`;
  return [
    `lockcloud ${VERSION}: a self-hostable smart-lock cloud`,
    '',
    'Usage: lockcloud [command] [arguments]     (no command: serve)',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, entry]) => line(name, entry.summary)),
    line('help', 'this text; `lockcloud help COMMAND` is `lockcloud COMMAND --help`'),
    '',
    'Options:',
    line('-h, --help', 'this text'),
    line('-V, --version', 'print the version'),
    '',
    'Exit codes:',
    '  0  done (serve and sim: stopped by SIGINT or SIGTERM)',
    '  1  failed: the reason on stderr (a refused change, a failed migration, a server that could',
    '     not start, a command whose task ended unsuccessful)',
    '  2  usage error: an unknown command or option, a bad setting or seed file',
    '  3  lockcloud locks (events, grants, invitations, keys): authentication refused (401)',
    '  4  lockcloud locks (...): refused by the API before running (the code on stderr)',
    '  5  lockcloud locks (...): the server is unreachable, did not answer in time, or answered 5xx',
    '',
    'Each command has its own --help (`lockcloud help serve` lists every setting).',
    '',
  ].join('\n');
}

/** Runs the command named by `argv[0]`; resolves to an exit code when it does not run a command. */
async function cli(argv: readonly string[]): Promise<number | undefined> {
  const [first = 'serve', ...rest] = argv;
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) {
    process.stdout.write(help());
    return 0;
  }
  const [name, args] = first === 'help' ? [rest[0] ?? '', ['--help']] : [first, rest];
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    process.stderr.write(
      `lockcloud: unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')} (lockcloud --help)\n`,
    );
    return 2;
  }
  // The command modules read their own arguments from process.argv, as when run on their own.
  process.argv = [process.argv[0] ?? process.execPath, process.argv[1] ?? 'lockcloud', ...args];
  // `lockcloud events ...` is `lockcloud locks events ...` (and grants, invitations, keys alike).
  if (LOCKS_COMMANDS.has(name)) process.argv.splice(2, 0, name);
  await entry.load();
  return undefined;
}

const code = await cli(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
