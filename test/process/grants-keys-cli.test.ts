/**
 * `lockcloud grants`, `lockcloud invitations` and `lockcloud keys` (issue 23) as processes against a
 * real server: each command's way through, its options checked before any request (exit 2 naming
 * the option), and the server's refusals printed with its message and mapped to the exit codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCli } from '../support/cli.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { failed, locksCli, ok, type Run } from './locks-cli-support.ts';

let t: TestServer;

/** Through the `lockcloud` command (src/bin/cli.ts), as a user types it. */
function lockcloud(args: readonly string[], key = OWNER_KEY): Promise<Run> {
  return startCli(args, {
    entry: ['--import', 'tsx', 'src/bin/cli.ts'],
    env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: key },
  }).done;
}

const json = <T>(run: Run): T => {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as T;
};

/** A year on, to the second, as the API writes it back. */
const inAYear = new Date(Math.floor(Date.now() / 1000 + 365 * 86_400) * 1000).toISOString();

describe('lockcloud grants and invitations', () => {
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t?.close());

  it('invite, list, accept, edit, revoke: the owner and the guest through the CLI', async () => {
    const invited = await lockcloud([
      'grants',
      'invite',
      LOCK_B,
      OTHER,
      '--role',
      'operate',
      '--days',
      'mon,fri',
      '--from',
      '08:00',
      '--to',
      '18:00',
      '--ends',
      inAYear,
    ]);
    ok(
      invited,
      new RegExp(`^invited ${OTHER} to ${LOCK_B} as operate: grant grt_[0-9a-f]{32} \\(pending\\)\\n$`),
    );
    const id = /grant (grt_[0-9a-f]{32})/.exec(invited.stdout)?.[1] ?? '';

    const listed = await lockcloud(['grants', 'list', LOCK_B]);
    ok(listed, /GRANT_ID\s+GUEST\s+ROLE\s+STATE\s+WINDOW\s+SCHEDULE\s+ONE_TIME/);
    assert.match(
      listed.stdout,
      new RegExp(`${id}\\s+${OTHER}\\s+operate\\s+pending\\s+… to ${inAYear}\\s+mon,fri 08:00-18:00\\s+no`),
    );

    const pending = await lockcloud(['invitations'], OTHER_KEY);
    ok(pending, new RegExp(`${id}\\s+Back door\\s+${LOCK_B}\\s+owner@example.com\\s+operate\\s+pending`));
    const viaList = json<{ invitations: { id: string }[] }>(
      await lockcloud(['invitations', 'list', '--json'], OTHER_KEY),
    );
    assert.deepEqual(
      viaList.invitations.map((i) => i.id),
      [id],
    );

    ok(
      await lockcloud(['invitations', 'accept', id], OTHER_KEY),
      new RegExp(`^accepted: Back door \\(${LOCK_B}\\) from owner@example.com, operate\\n$`),
    );
    ok(await lockcloud(['invitations'], OTHER_KEY), /^no invitations\n$/);

    const edited = json<{ role: string; state: string; one_time: boolean }>(
      await lockcloud(['grants', 'edit', LOCK_B, id, '--role', 'view', '--json']),
    );
    assert.deepEqual(edited.role, 'view');
    assert.equal(edited.state, 'accepted', 'the state stays');
    // An entry may end at 24:00, the end of the day, as the API takes it.
    const late = json<{ schedule: unknown }>(
      await lockcloud([
        'grants',
        'edit',
        LOCK_B,
        id,
        '--days',
        'sat,sun',
        '--from',
        '22:00',
        '--to',
        '24:00',
        '--json',
      ]),
    );
    assert.deepEqual(late.schedule, [{ days: ['sat', 'sun'], start: '22:00', end: '24:00' }]);
    // And every bound cleared again: no window, no schedule.
    const open = json<{ starts_at: unknown; ends_at: unknown; schedule: unknown }>(
      await lockcloud(['grants', 'edit', LOCK_B, id, '--ends', 'none', '--any-time', '--json']),
    );
    assert.deepEqual([open.starts_at, open.ends_at, open.schedule], [null, null, null]);

    ok(
      await lockcloud(['grants', 'revoke', LOCK_B, id]),
      new RegExp(`^revoked grant ${id} of ${LOCK_B}\\n$`),
    );
    const after = json<{ grants: { id: string; state: string }[] }>(
      await locksCli(t, ['grants', 'list', LOCK_B, '--json']),
    );
    assert.equal(after.grants.find((g) => g.id === id)?.state, 'revoked');
  });

  it('decline: the invitation is answered and gone', async () => {
    const made = json<{ id: string }>(
      await lockcloud(['grants', 'invite', LOCK_B, OTHER, '--once', '--role', 'operate', '--json']),
    );
    ok(await lockcloud(['invitations', 'decline', made.id], OTHER_KEY), /^declined: Back door/);
    const grants = json<{ grants: { id: string; state: string; one_time: boolean }[] }>(
      await lockcloud(['grants', 'list', LOCK_B, '--json']),
    );
    assert.deepEqual(
      grants.grants.filter((g) => g.id === made.id).map((g) => [g.state, g.one_time]),
      [['declined', true]],
    );
  });

  it('bad option values are refused before any request: exit 2 naming the option', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['grants', 'invite', LOCK_B, OTHER, '--role', 'admin'],
        /option '--role <role>' argument 'admin' is invalid\. must be view or operate/,
      ],
      [
        ['grants', 'invite', LOCK_B, OTHER, '--from', '25:00', '--to', '18:00'],
        /'--from <HH:MM>' argument '25:00' is invalid\. must be a time of day/,
      ],
      [
        ['grants', 'invite', LOCK_B, OTHER, '--from', '24:00', '--to', '18:00'],
        /'--from <HH:MM>' argument '24:00' is invalid\. must be a time of day as HH:MM, 00:00 to 23:59/,
      ],
      [
        ['grants', 'invite', LOCK_B, OTHER, '--from', '08:00', '--to', '24:01'],
        /'--to <HH:MM>' argument '24:01' is invalid\. must be a time of day as HH:MM, 00:00 to 24:00/,
      ],
      [
        ['grants', 'edit', LOCK_B, 'x', '--days', 'mon,funday', '--from', '08:00', '--to', '09:00'],
        /"funday" is not one of mon,tue,wed,thu,fri,sat,sun/,
      ],
      [
        ['grants', 'invite', LOCK_B, OTHER, '--ends', '2027-01-01'],
        /'--ends <date-time>' argument '2027-01-01' is invalid/,
      ],
      [['grants', 'invite', LOCK_B, OTHER, '--days', 'mon'], /a schedule needs both --from and --to/],
      [['grants', 'edit', LOCK_B, 'x'], /nothing to change/],
      [
        ['grants', 'edit', LOCK_B, 'x', '--any-time', '--days', 'mon'],
        /--any-time is no schedule: leave out --days, --from and --to/,
      ],
      [
        ['grants', 'edit', LOCK_B, 'x', '--starts', 'never'],
        /'--starts <date-time>' argument 'never' is invalid/,
      ],
      [['grants', 'list'], /missing required argument 'device_id'/],
    ];
    for (const [args, message] of cases) failed(await lockcloud(args), 2, message);
  });

  it("the server's refusals: its message, exit 4 (401: exit 3)", async () => {
    failed(
      await lockcloud(['grants', 'revoke', LOCK_B, '00000000-0000-4000-8000-000000000999']),
      4,
      /refused: NOT_FOUND: no such grant/,
    );
    failed(await lockcloud(['grants', 'list', OTHER_LOCK]), 4, /refused: NOT_FOUND: no such lock/);
    failed(
      await lockcloud(['grants', 'invite', LOCK_B, 'nobody@example.com']),
      4,
      /refused: BAD_PARAMS: email: no lockcloud account can be invited at that address/,
    );
    failed(
      await lockcloud(['grants', 'invite', LOCK_B, OTHER, '--ends', '2020-01-01T00:00:00Z']),
      4,
      /refused: BAD_PARAMS: ends_at/,
    );
    failed(
      await lockcloud(['invitations', 'accept', 'no-such-id'], OTHER_KEY),
      4,
      /refused: NOT_FOUND: no such invitation/,
    );
    failed(await lockcloud(['grants', 'list', LOCK_A], 'lck_unknown'), 3, /UNAUTHORIZED/);
  });
});

describe('lockcloud keys', () => {
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t?.close());

  it('create with limits prints the secret once; list shows the limits and the last use; delete ends it', async () => {
    const made = await lockcloud([
      'keys',
      'create',
      '--scope',
      'locks:read',
      '--scope',
      'keys:manage',
      '--lock',
      LOCK_A,
      '--expires',
      inAYear,
      '--name',
      'cli bot',
    ]);
    ok(made, /^lck_[A-Za-z0-9_-]{32}\n$/);
    const key = made.stdout.trim();

    // The new key works within its limits: its own lock, not another.
    ok(await locksCli(t, ['status', LOCK_A], { LOCKCLOUD_API_KEY: key }), /locked/);
    failed(await locksCli(t, ['status', LOCK_B], { LOCKCLOUD_API_KEY: key }), 4, /NOT_FOUND/);

    const listed = await lockcloud(['keys', 'list']);
    ok(listed, /ID\s+PREFIX\s+NAME\s+SCOPES\s+LOCKS\s+EXPIRES\s+LAST_USED\s+LAST_IP/);
    const line = listed.stdout.split('\n').find((l) => l.includes(`${key.slice(0, 10)}…`)) ?? '';
    assert.match(
      line,
      new RegExp(`cli bot\\s+locks:read,keys:manage\\s+${LOCK_A}\\s+${inAYear.replace('Z', '')}`),
    );
    assert.match(line, /\d{4}-\d\d-\d\dT\S+\s+(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    assert.match(listed.stdout, /full access\s+all\s+never/, 'the seeded key, made before limits');

    const { keys } = json<{ keys: { id: string; prefix: string; last_used_ip: string | null }[] }>(
      await lockcloud(['keys', 'list', '--json']),
    );
    const id = keys.find((k) => key.startsWith(k.prefix))?.id ?? '';
    ok(await lockcloud(['keys', 'delete', id]), new RegExp(`^deleted key ${id}\\n$`));
    failed(await locksCli(t, ['list'], { LOCKCLOUD_API_KEY: key }), 3, /UNAUTHORIZED/);
    failed(await lockcloud(['keys', 'delete', id]), 4, /refused: NOT_FOUND/);
  });

  it('--json answers the key with its limits; a limited key cannot mint a wider one (exit 4)', async () => {
    const limited = json<{ key: string; scopes: string[]; lock_ids: string[] | null }>(
      await lockcloud(['keys', 'create', '--scope', 'keys:manage', '--lock', LOCK_A, '--json']),
    );
    assert.deepEqual([limited.scopes, limited.lock_ids], [['keys:manage'], [LOCK_A]]);
    failed(await lockcloud(['keys', 'create'], limited.key), 4, /refused: ACCESS_DENY: .*within its own/);
    failed(
      await lockcloud(['keys', 'create', '--lock', 'nope'], OWNER_KEY),
      4,
      /refused: BAD_PARAMS: lock_ids/,
    );
    failed(await lockcloud(['keys', 'list'], OTHER_KEY.replace('2', '3')), 3, /UNAUTHORIZED/);
  });

  it('bad option values: exit 2 before any request', async () => {
    failed(
      await lockcloud(['keys', 'create', '--scope', 'locks:admin']),
      2,
      /'--scope <scope>' argument 'locks:admin' is invalid\. must be one of locks:read/,
    );
    failed(
      await lockcloud(['keys', 'create', '--expires', 'tomorrow']),
      2,
      /'--expires <date-time>' argument 'tomorrow' is invalid/,
    );
    failed(await lockcloud(['keys', 'delete']), 2, /missing required argument 'id'/);
  });
});
