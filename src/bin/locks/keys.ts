/**
 * `lockcloud keys list|create|delete` (also under `lockcloud locks`): the account's API keys through
 * /ext/keys (docs/security.md "Scoped, expiring API keys"), with a key that has `keys:manage`. A new
 * key's secret is printed this once, as the dashboard shows it once; nothing shows it again.
 */
import { InvalidArgumentError, Option, type Command as Program } from 'commander';
import type { ApiKey, ApiKeyInput, ApiKeyScope } from '../../../sdk/src/index.ts';
import { call, context } from './context.ts';
import { dateTime } from './grants.ts';
import { note, out, table } from './output.ts';

const SCOPES: readonly ApiKeyScope[] = [
  'locks:read',
  'locks:operate',
  'events:read',
  'webhooks:manage',
  'keys:manage',
];

/** A repeated option collects its values: `--scope a --scope b`. */
const each =
  <T>(check: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), check(value)];

function scope(value: string): ApiKeyScope {
  if (!SCOPES.includes(value as ApiKeyScope))
    throw new InvalidArgumentError(`must be one of ${SCOPES.join(', ')}.`);
  return value as ApiKeyScope;
}

interface CreateOptions {
  scope?: ApiKeyScope[];
  lock?: string[];
  expires?: string;
  name?: string;
}

const limitText = (list: readonly string[] | null, all: string): string =>
  list === null ? all : list.join(',');

function keysTable(keys: readonly ApiKey[]): string {
  return table([
    ['ID', 'PREFIX', 'NAME', 'SCOPES', 'LOCKS', 'EXPIRES', 'LAST_USED', 'LAST_IP'],
    ...keys.map((k) => [
      k.id,
      `${k.prefix}…`,
      k.name ?? '-',
      k.scopes === null && k.lock_ids === null && k.expires_at === null
        ? 'full access'
        : limitText(k.scopes, 'every scope'),
      limitText(k.lock_ids, 'all'),
      k.expires_at ?? 'never',
      k.last_used_at ?? 'never',
      k.last_used_ip ?? '-',
    ]),
  ]);
}

/** `keys list|create|delete`, added to the CLI's program. */
export function addKeyCommands(root: Program): void {
  const keys = root.command('keys').description("the account's API keys (needs a key with keys:manage)");
  keys
    .command('list')
    .description('every key of the account: prefix, name, limits, last use and its client address')
    .action(async (_opts: unknown, cmd: Program) => {
      const ctx = context(cmd);
      const { keys: list } = await call(ctx, (signal) => ctx.client.keys.list({ signal }));
      if (ctx.json) out(JSON.stringify({ keys: list }, null, 2));
      else out(list.length === 0 ? 'no keys' : keysTable(list));
    });
  keys
    .command('create')
    .description(
      'make a key, within the calling key’s own limits; its secret is printed this once (none given: every scope, every lock, no expiry)',
    )
    .addOption(
      new Option('--scope <scope>', `a scope it gets (repeat for more): ${SCOPES.join(', ')}`).argParser(
        each(scope),
      ),
    )
    .addOption(
      new Option('--lock <device_id>', 'a lock it reaches (repeat for more); none: every lock').argParser(
        each((v: string) => v),
      ),
    )
    .addOption(
      new Option('--expires <date-time>', 'when it stops working (RFC 3339 with an offset)').argParser(
        dateTime,
      ),
    )
    .option('--name <name>', 'a label to tell it apart (1 to 64 characters)')
    .action(async (opts: CreateOptions, cmd: Program) => {
      const input: ApiKeyInput = {
        ...(opts.scope === undefined ? {} : { scopes: opts.scope }),
        ...(opts.lock === undefined ? {} : { lock_ids: opts.lock }),
        ...(opts.expires === undefined ? {} : { expires_at: opts.expires }),
        ...(opts.name === undefined ? {} : { name: opts.name }),
      };
      const ctx = context(cmd);
      const made = await call(ctx, (signal) => ctx.client.keys.create(input, { signal }));
      if (ctx.json) {
        out(JSON.stringify(made, null, 2));
        return;
      }
      // The secret alone on stdout, so `KEY=$(lockcloud keys create ...)` holds just it; the reminder
      // only on a terminal (off one, stderr stays for failures).
      out(made.key);
      if (process.stderr.isTTY === true) note(`key ${made.id}: copy the secret now, it is not shown again`);
    });
  keys
    .command('delete')
    .description('delete a key: requests with it are refused (401) at once')
    .argument('<id>')
    .action(async (id: string, _opts: unknown, cmd: Program) => {
      const ctx = context(cmd);
      await call(ctx, (signal) => ctx.client.keys.delete(id, { signal }));
      out(ctx.json ? JSON.stringify({ deleted: id }) : `deleted key ${id}`);
    });
}
