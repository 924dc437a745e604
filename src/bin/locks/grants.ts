/**
 * `lockcloud grants ...` and `lockcloud invitations ...` (also under `lockcloud locks`): an owner's
 * grants of a lock to other accounts and a guest's answers to them (docs/locks.md "Grants"), through
 * the SDK's `client.grants`. Option values are checked here before any request, so a typo is a usage
 * error (exit 2) that names the option rather than a round trip to a 400.
 */
import { InvalidArgumentError, Option, type Command as Program } from 'commander';
import type {
  Grant,
  GrantRole,
  GrantScheduleEntry,
  GrantTerms,
  GuestGrant,
  OwnerGrant,
} from '../../../sdk/src/index.ts';
import { isEndClock, isStartClock, WEEKDAYS, type Weekday } from '../../domain/schedule.ts';
import { call, context } from './context.ts';
import { UsageError } from './exit-codes.ts';
import { out, table } from './output.ts';

const ROLES: readonly GrantRole[] = ['view', 'operate'];

/** The terms' options, as commander parses them (each checked by its parser below). */
export interface TermsOptions {
  role?: GrantRole;
  /** A date-time, or NO_BOUND. */
  starts?: string;
  ends?: string;
  days?: string[];
  from?: string;
  to?: string;
  anyTime?: boolean;
  once?: boolean;
}

function role(value: string): GrantRole {
  if (!ROLES.includes(value as GrantRole)) throw new InvalidArgumentError('must be view or operate.');
  return value as GrantRole;
}

/** An RFC 3339 date-time with an offset, as the API takes it: a bare date or local time is refused here. */
export function dateTime(value: string): string {
  const shaped = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(value);
  if (!shaped || Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('must be a date-time with an offset, like 2027-01-31T18:00:00Z.');
  return value;
}

/**
 * `--starts` and `--ends`: a date-time, or `none` for no bound (what `edit` clears a bound with).
 * Kept as the word, not null: commander stores a parser's null as ''.
 */
const NO_BOUND = 'none';
function bound(value: string): string {
  return value.toLowerCase() === NO_BOUND ? NO_BOUND : dateTime(value);
}
const boundOf = (value: string): string | null => (value === NO_BOUND ? null : value);

function days(value: string): string[] {
  const list = value
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  const wrong = list.find((d) => !WEEKDAYS.includes(d as Weekday));
  if (wrong !== undefined) throw new InvalidArgumentError(`"${wrong}" is not one of ${WEEKDAYS.join(',')}.`);
  return list;
}

// The API's rules for a schedule entry's times (domain/schedule.ts): an end may be 24:00.
function startClock(value: string): string {
  if (!isStartClock(value)) throw new InvalidArgumentError('must be a time of day as HH:MM, 00:00 to 23:59.');
  return value;
}

function endClock(value: string): string {
  if (!isEndClock(value)) throw new InvalidArgumentError('must be a time of day as HH:MM, 00:00 to 24:00.');
  return value;
}

/** The options every command that sets terms takes (`invite`, `edit`). */
function withTerms(cmd: Program): Program {
  return cmd
    .addOption(
      new Option('--role <role>', 'view (read it) or operate (also lock and unlock)').argParser(role),
    )
    .addOption(
      new Option(
        '--starts <date-time>',
        'from when (RFC 3339 with an offset; none: from acceptance)',
      ).argParser(bound),
    )
    .addOption(
      new Option('--ends <date-time>', 'until when (RFC 3339 with an offset; none: until revoked)').argParser(
        bound,
      ),
    )
    .addOption(
      new Option('--days <days>', "weekly schedule's days, e.g. mon,tue,fri (default: every day)").argParser(
        days,
      ),
    )
    .addOption(
      new Option('--from <HH:MM>', "weekly schedule's start, on the lock's time zone").argParser(startClock),
    )
    .addOption(
      new Option(
        '--to <HH:MM>',
        "weekly schedule's end, 24:00 for midnight (before --from: past midnight)",
      ).argParser(endClock),
    )
    .option('--any-time', 'no weekly schedule: at any time within the window (what edit clears one with)')
    .option('--once', 'one-time (operate only): it ends with the first successful unlock');
}

/** The terms the options give; a schedule needs --from and --to (--days alone says no times). */
export function termsOf(opts: TermsOptions): GrantTerms {
  const terms: GrantTerms = {};
  if (opts.role !== undefined) terms.role = opts.role;
  if (opts.starts !== undefined) terms.starts_at = boundOf(opts.starts);
  if (opts.ends !== undefined) terms.ends_at = boundOf(opts.ends);
  if (opts.once === true) terms.one_time = true;
  const scheduled = opts.days !== undefined || opts.from !== undefined || opts.to !== undefined;
  if (opts.anyTime === true) {
    if (scheduled) throw new UsageError('--any-time is no schedule: leave out --days, --from and --to');
    terms.schedule = null;
  } else if (scheduled) {
    if (opts.from === undefined || opts.to === undefined)
      throw new UsageError('a schedule needs both --from and --to (and --days, or every day)');
    const entry: GrantScheduleEntry = { days: opts.days ?? [...WEEKDAYS], start: opts.from, end: opts.to };
    terms.schedule = [entry];
  }
  return terms;
}

const windowText = (g: Grant): string =>
  g.starts_at === null && g.ends_at === null ? 'always' : `${g.starts_at ?? '…'} to ${g.ends_at ?? '…'}`;

const schedule = (g: Grant): string =>
  g.schedule === null
    ? 'any time'
    : g.schedule.map((s) => `${s.days.join(',')} ${s.start}-${s.end}`).join('; ');

function ownerTable(grants: readonly OwnerGrant[]): string {
  return table([
    ['GRANT_ID', 'GUEST', 'ROLE', 'STATE', 'WINDOW', 'SCHEDULE', 'ONE_TIME'],
    ...grants.map((g) => [
      g.id,
      g.guest_email,
      g.role,
      g.state,
      windowText(g),
      schedule(g),
      g.one_time ? 'yes' : 'no',
    ]),
  ]);
}

function guestTable(grants: readonly GuestGrant[]): string {
  return table([
    ['ID', 'LOCK', 'DEVICE_ID', 'FROM', 'ROLE', 'STATE', 'WINDOW', 'SCHEDULE'],
    ...grants.map((g) => [
      g.id,
      g.lock_nickname,
      g.device_id,
      g.owner_email,
      g.role,
      g.state,
      windowText(g),
      schedule(g),
    ]),
  ]);
}

/** One grant as the API answered it (--json), else one line saying what happened. */
function printed(cmd: Program, grant: Grant, line: string): void {
  out(context(cmd).json ? JSON.stringify(grant, null, 2) : line);
}

/** `grants list|invite|edit|revoke` and `invitations [list]|accept|decline`, added to the CLI's program. */
export function addGrantCommands(root: Program): void {
  const grants = root.command('grants').description("a lock's grants to other accounts (its owner only)");
  grants
    .command('list')
    .description('every grant of the lock, in every state, with the guest’s e-mail')
    .argument('<device_id>')
    .action(async (id: string, _opts: unknown, cmd: Program) => {
      const ctx = context(cmd);
      const { grants: list } = await call(ctx, (signal) => ctx.client.grants.list(id, { signal }));
      if (ctx.json) out(JSON.stringify({ grants: list }, null, 2));
      else out(list.length === 0 ? 'no grants' : ownerTable(list));
    });
  withTerms(
    grants
      .command('invite')
      .description('invite the account at this e-mail to the lock (pending until the guest accepts)')
      .argument('<device_id>')
      .argument('<email>'),
  ).action(async (id: string, email: string, opts: TermsOptions, cmd: Program) => {
    const invitation = { email, role: opts.role ?? 'view', ...termsOf(opts) };
    const ctx = context(cmd);
    const grant = await call(ctx, (signal) => ctx.client.grants.invite(id, invitation, { signal }));
    printed(
      cmd,
      grant,
      `invited ${grant.guest_email} to ${id} as ${grant.role}: grant ${grant.id} (pending)`,
    );
  });
  withTerms(
    grants
      .command('edit')
      .description("change a grant's terms (only those given); its state stays")
      .argument('<device_id>')
      .argument('<grant_id>'),
  ).action(async (id: string, grantId: string, opts: TermsOptions, cmd: Program) => {
    const terms = termsOf(opts);
    if (Object.keys(terms).length === 0)
      throw new UsageError(
        'nothing to change: give --role, --starts, --ends, --days/--from/--to, --any-time or --once',
      );
    const ctx = context(cmd);
    const grant = await call(ctx, (signal) => ctx.client.grants.update(id, grantId, terms, { signal }));
    printed(cmd, grant, `grant ${grant.id} of ${id} changed (${grant.role}, ${grant.state})`);
  });
  grants
    .command('revoke')
    .description('revoke a grant (a pending one: withdraw the invitation), at once')
    .argument('<device_id>')
    .argument('<grant_id>')
    .action(async (id: string, grantId: string, _opts: unknown, cmd: Program) => {
      const ctx = context(cmd);
      await call(ctx, (signal) => ctx.client.grants.revoke(id, grantId, { signal }));
      out(ctx.json ? JSON.stringify({ revoked: grantId }) : `revoked grant ${grantId} of ${id}`);
    });

  const invitations = root
    .command('invitations')
    .description("this account's pending invitations to other accounts' locks; accept or decline one");
  const listInvitations = async (_opts: unknown, cmd: Program) => {
    const ctx = context(cmd);
    const { invitations: list } = await call(ctx, (signal) => ctx.client.grants.invitations({ signal }));
    if (ctx.json) out(JSON.stringify({ invitations: list }, null, 2));
    else out(list.length === 0 ? 'no invitations' : guestTable(list));
  };
  invitations.action(listInvitations);
  invitations
    .command('list')
    .description('the pending invitations (as `invitations` alone)')
    .action(listInvitations);
  for (const answer of ['accept', 'decline'] as const)
    invitations
      .command(answer)
      .description(
        answer === 'accept'
          ? 'accept an invitation: the lock appears in this account'
          : 'decline an invitation, or give back an accepted grant',
      )
      .argument('<id>')
      .action(async (grantId: string, _opts: unknown, cmd: Program) => {
        const ctx = context(cmd);
        const grant = await call(ctx, (signal) => ctx.client.grants[answer](grantId, { signal }));
        const done = answer === 'accept' ? 'accepted' : 'declined';
        printed(
          cmd,
          grant,
          `${done}: ${grant.lock_nickname} (${grant.device_id}) from ${grant.owner_email}, ${grant.role}`,
        );
      });
}
