/**
 * `npm run admin -- <command>` / `lockcloud admin <command>`: account and lock administration on a
 * data directory, also while a server runs on it (SQLite in WAL mode lets a second process write;
 * the server reads accounts from the store on every request, so changes apply at once).
 *
 * Exit codes: 0 done, 1 refused (the reason on stderr), 2 a usage or configuration error.
 * Passwords given to it and hashes are never printed; what it makes itself (the demo's new
 * credentials, a webhook's signing secret, an access point's) is printed that once.
 */
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import { AdjustableClock } from '../adapters/system/clock.ts';
import { cryptoRandom, scryptHasher, sha256Hasher } from '../adapters/system/crypto.ts';
import { aesGcmBox, loadServerKey } from '../adapters/webhooks/secret-box.ts';
import { standardWebhooksSigner } from '../adapters/webhooks/signer.ts';
import { type AccountSummary, Admin } from '../app/admin.ts';
import { ConfigError, loadConfig, secretInputs } from '../config/config.ts';
import { secretScrubber } from '../config/redact.ts';
import { normalizeEmail } from '../domain/account.ts';
import { DomainError, isDomainError } from '../domain/errors.ts';
import type { WebhookConfig } from '../domain/webhook.ts';
import { openStore } from '../open-store.ts';
import { addDeviceCommands } from './admin-devices.ts';

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

/**
 * Opens the configured store, runs `work` and closes the store whatever happens. `serverKey`: the
 * command seals webhook secrets, with the server's key (LOCKCLOUD_SECRET_KEY, else the key file in
 * the data directory, made there if missing), so the server can open what it seals.
 */
async function withAdmin<T>(
  command: Command,
  work: (admin: Admin) => Promise<T>,
  options: { serverKey?: boolean } = {},
): Promise<T> {
  const { data } = command.optsWithGlobals<{ data?: string }>();
  // The server's own configuration, so --data and LOCKCLOUD_DATA mean here what they mean there.
  const config = loadConfig(process.env, data === undefined ? [] : ['--data', data]);
  // openStore would create a missing directory: a mistyped path must not become an empty database.
  // On PostgreSQL the directory holds only the server key, read when there is no LOCKCLOUD_SECRET_KEY.
  const needsDirectory =
    config.databaseUrl === undefined || (options.serverKey === true && config.secretKey === undefined);
  if (needsDirectory && !isDirectory(config.dataDir))
    throw new UsageError(`no data directory at ${config.dataDir} (pass --data DIR or set LOCKCLOUD_DATA)`);
  const webhookSecrets =
    options.serverKey === true
      ? { box: aesGcmBox(loadServerKey(config.secretKey, config.dataDir)), signer: standardWebhooksSigner }
      : undefined;
  const store = await openStore(config);
  try {
    return await work(
      new Admin({
        store,
        passwords: scryptHasher(),
        secrets: sha256Hasher,
        clock: new AdjustableClock(),
        random: cryptoRandom,
        ...(webhookSecrets === undefined ? {} : { webhookSecrets }),
      }),
    );
  } finally {
    await store.close();
  }
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) return line;
  return '';
}

/** The --password value, else stdin's first line: piped in, it stays out of the shell history. */
async function passwordFrom(option: string | undefined): Promise<string> {
  if (option !== undefined) return option;
  if (process.stdin.isTTY)
    throw new UsageError('no password given: pass --password P, or write it on stdin (kept out of history)');
  try {
    return await firstLine(process.stdin);
  } finally {
    process.stdin.destroy();
  }
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const iso = (instant: number | null): string | null =>
  instant === null ? null : new Date(instant).toISOString();

function accountsJson(accounts: readonly AccountSummary[]): string {
  const rows = accounts.map((a) => ({
    id: a.id,
    email: a.email,
    verified: a.verified,
    has_password: a.hasPassword,
    deleted: a.deletedAt !== null,
    deleted_at: iso(a.deletedAt),
    created_at: iso(a.createdAt),
    locks_owned: a.locksOwned,
  }));
  return JSON.stringify(rows, null, 2);
}

function accountsTable(accounts: readonly AccountSummary[]): string {
  if (accounts.length === 0) return 'no accounts';
  const yesNo = (value: boolean): string => (value ? 'yes' : 'no');
  const rows = [
    ['EMAIL', 'VERIFIED', 'PASSWORD', 'DELETED', 'LOCKS'],
    ...accounts.map((a) => [
      a.email,
      yesNo(a.verified),
      yesNo(a.hasPassword),
      iso(a.deletedAt)?.slice(0, 10) ?? 'no',
      String(a.locksOwned),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `POST https://... (retries off)`: a webhook on one line, never its secret. */
const webhookLine = (config: WebhookConfig): string =>
  `${config.method} ${config.url} (retries ${config.retries ? 'on' : 'off'})`;

function program(): Command {
  const root = new Command('lockcloud admin')
    .description('Administer the accounts and locks of a lockcloud data directory (also while it serves).')
    .option('--data <dir>', 'the data directory (env LOCKCLOUD_DATA; default ./data)')
    .addHelpText(
      'afterAll',
      '\nExit codes:\n  0  done\n  1  refused: the reason on stderr (an unknown or deleted account, an e-mail already\n     taken, a password outside the rule, ...)\n  2  usage or configuration error: an unknown command or option, a missing argument, no data\n     directory\n',
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);

  root
    .command('create-account')
    .description('create an account (verified unless --unverified)')
    .argument('<email>')
    .option('--password <password>', 'its password (else read from stdin)')
    .option('--no-password', 'no password: an account that signs in through a social login')
    .option('--verified', 'its e-mail address is verified (the default)')
    .addOption(new Option('--unverified', 'its e-mail address is not verified yet').conflicts('verified'))
    .action(
      async (email: string, opts: { password?: string | false; unverified?: boolean }, cmd: Command) => {
        const password = opts.password === false ? null : await passwordFrom(opts.password);
        const verified = opts.unverified !== true;
        const account = await withAdmin(cmd, (admin) => admin.createAccount(email, { password, verified }));
        say(
          `created account ${account.email} (${verified ? 'verified' : 'unverified'}, ${
            password === null ? 'no password: social login only' : 'with a password'
          })`,
        );
      },
    );

  root
    .command('set-password')
    .description("set an account's password; its earlier v1 tokens expire")
    .argument('<email>')
    .option('--password <password>', 'the new password (else read from stdin)')
    .action(async (email: string, opts: { password?: string }, cmd: Command) => {
      const password = await passwordFrom(opts.password);
      await withAdmin(cmd, (admin) => admin.setPassword(email, password));
      say(`password set for ${normalizeEmail(email)}; tokens issued before now have expired`);
    });

  root
    .command('demo-credentials')
    .description(
      "a new password and API key for the sandbox's demo account, printed this once (its first ones were printed only at the start that made it)",
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const demo = await withAdmin(cmd, (admin) => admin.renewDemo());
      say('new credentials for the demo account (shown this once, stored only hashed):');
      say(`  login:    ${demo.email} / ${demo.password}`);
      say(`  API key:  ${demo.apiKey}`);
      say('its earlier password no longer works; its earlier API keys still do');
    });

  root
    .command('verify')
    .description("mark an account's e-mail address as verified")
    .argument('<email>')
    .action(async (email: string, _opts: unknown, cmd: Command) => {
      const changed = await withAdmin(cmd, (admin) => admin.verify(email));
      say(changed ? `verified ${normalizeEmail(email)}` : `${normalizeEmail(email)} was already verified`);
    });

  root
    .command('delete-account')
    .description('delete an account: its API keys and tokens stop working at once')
    .argument('<email>')
    .action(async (email: string, _opts: unknown, cmd: Command) => {
      const changed = await withAdmin(cmd, (admin) => admin.deleteAccount(email));
      say(
        changed
          ? `deleted ${normalizeEmail(email)}: its API keys and tokens no longer work`
          : `${normalizeEmail(email)} was already deleted`,
      );
    });

  root
    .command('share')
    .description('share a lock with an account other than its owner')
    .argument('<device_id>')
    .argument('<email>')
    .action(async (deviceId: string, email: string, _opts: unknown, cmd: Command) => {
      await withAdmin(cmd, (admin) => admin.shareLock(deviceId, email));
      say(`shared lock ${deviceId.trim().toLowerCase()} with ${normalizeEmail(email)}`);
    });

  root
    .command('accounts')
    .description('list every account, deleted ones too')
    .option('--json', 'as JSON, for scripts')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const accounts = await withAdmin(cmd, (admin) => admin.listAccounts());
      say(opts.json === true ? accountsJson(accounts) : accountsTable(accounts));
    });

  root
    .command('blocks')
    .description('list client addresses blocked for exceeding the v3 rate limits')
    .option('--json', 'as JSON, for scripts')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const blocks = await withAdmin(cmd, (admin) => admin.listBlocks());
      const rows = blocks.map((b) => ({ ip: b.ip, blocked_at: iso(b.blockedAt), until: iso(b.until) }));
      if (opts.json === true) say(JSON.stringify(rows, null, 2));
      else if (rows.length === 0) say('no address is blocked');
      else for (const r of rows) say(`${r.ip}  blocked ${r.blocked_at} until ${r.until}`);
    });

  root
    .command('unblock')
    .description('lift the block on a client address (running servers notice within a second)')
    .argument('<ip>')
    .action(async (ip: string, _opts: unknown, cmd: Command) => {
      const lifted = await withAdmin(cmd, (admin) => admin.unblock(ip));
      if (!lifted) throw new DomainError('INVALID_INPUT', `${ip.trim()} is not blocked`);
      say(`unblocked ${ip.trim()}`);
    });

  root
    .command('webhook')
    .description("show an account's webhook: URL, method and retries (never its signing secret)")
    .argument('<email>')
    .option('--json', 'as JSON, for scripts (null when there is none)')
    .action(async (email: string, opts: { json?: boolean }, cmd: Command) => {
      const config = await withAdmin(cmd, (admin) => admin.webhook(email));
      if (opts.json === true)
        say(
          JSON.stringify(config ? { url: config.url, method: config.method, retries: config.retries } : null),
        );
      else
        say(
          config
            ? `${normalizeEmail(email)}: ${webhookLine(config)}`
            : `${normalizeEmail(email)} has no webhook`,
        );
    });

  root
    .command('set-webhook')
    .description(
      "set an account's webhook, as PUT /ext/webhook does; the first time, prints its signing secret once",
    )
    .argument('<email>')
    .argument('<url>', 'http(s), at most 256 characters; {device_id} and {state} are filled in')
    .option('--method <method>', 'GET or POST', 'POST')
    .option('--retries', 'retry failed deliveries with backoff (off: one attempt, as documented)')
    .action(async (email: string, url: string, opts: { method: string; retries?: boolean }, cmd: Command) => {
      const { config, secret } = await withAdmin(
        cmd,
        (admin) => admin.setWebhook(email, { url, method: opts.method, retries: opts.retries === true }),
        { serverKey: true },
      );
      say(`webhook set for ${normalizeEmail(email)}: ${webhookLine(config)}`);
      if (secret !== undefined) say(`signing secret (shown this once; give it to the receiver): ${secret}`);
      else say('its signing secret is unchanged');
    });

  root
    .command('remove-webhook')
    .description("remove an account's webhook and its signing secret")
    .argument('<email>')
    .action(async (email: string, _opts: unknown, cmd: Command) => {
      const removed = await withAdmin(cmd, (admin) => admin.removeWebhook(email));
      say(
        removed
          ? `removed the webhook of ${normalizeEmail(email)}`
          : `${normalizeEmail(email)} had no webhook`,
      );
    });

  addDeviceCommands(root, (message) => new UsageError(message));
  return root;
}

/** Runs one admin command; resolves to the process exit code. */
export async function admin(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its own message (or the help asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`lockcloud admin: ${error.message}\n`);
      return 2;
    }
    if (isDomainError(error)) {
      process.stderr.write(`lockcloud admin: ${error.message}\n`);
      return 1;
    }
    // A store's error may echo DATABASE_URL: never its password.
    const scrub = secretScrubber(secretInputs(process.env, []));
    process.stderr.write(
      `lockcloud admin: unexpected failure\n${scrub((error as Error).stack ?? String(error))}\n`,
    );
    return 1;
  }
}

process.exitCode = await admin(process.argv.slice(2));
