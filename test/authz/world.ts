/**
 * The world the authorization matrix runs in: three accounts (owner, shared, stranger), each with
 * every kind of credential (a v1 token, API keys, a dashboard session with API Settings unlocked)
 * and every kind of object (locks, a task, a webhook and a delivery, a spare key), plus what each
 * account's data looks like (its markers) and a reader of the database that tells which account's
 * rows a request changed.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BetterSqlite3, type SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import type { Seed } from '../../src/app/seed/schema.ts';
import { sessionActor } from '../../src/domain/event.ts';
import { carriedOut, FormClient, latestCode } from '../dashboard/support.ts';
import { login } from '../http/v1/helpers.ts';
import { eventually } from '../support/eventually.ts';
import { answer, startServer, startTask, type TestServer, waitForTask } from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { sendTestEvent } from '../support/webhooks.ts';

export const ACTORS = ['owner', 'shared', 'stranger'] as const;
export type Actor = (typeof ACTORS)[number];

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Distinct, greppable values: each appears in exactly one account's data. */
export const PEOPLE: Record<Actor, { email: string; password: string; key: string; spareKey: string }> = {
  owner: {
    email: 'owner.authz@example.com',
    password: 'owner-authz-password',
    key: 'OWNERkey1-authz-0000000001',
    spareKey: 'OWNERspr1-authz-0000000001',
  },
  shared: {
    email: 'guest.authz@example.com',
    password: 'guest-authz-password',
    key: 'GUESTkey1-authz-0000000002',
    spareKey: 'GUESTspr1-authz-0000000002',
  },
  stranger: {
    email: 'stranger.authz@example.com',
    password: 'stranger-authz-password',
    key: 'STRNGkey1-authz-0000000003',
    spareKey: 'STRNGspr1-authz-0000000003',
  },
};

export interface LockFixture {
  readonly deviceId: string;
  readonly serial: string;
  readonly nickname: string;
  readonly owner: Actor;
  readonly sharedWith: readonly Actor[];
}

/** The owner's porch is shared with the shared account; everything else is private. */
export const LOCKS: readonly LockFixture[] = [
  {
    deviceId: id(0xa1),
    serial: 'OWNPORCH01',
    nickname: 'Ownerporch',
    owner: 'owner',
    sharedWith: ['shared'],
  },
  { deviceId: id(0xa2), serial: 'OWNCELLAR2', nickname: 'Ownercellar', owner: 'owner', sharedWith: [] },
  { deviceId: id(0xb1), serial: 'GSTGARAGE1', nickname: 'Guestgarage', owner: 'shared', sharedWith: [] },
  { deviceId: id(0xc1), serial: 'STRSHED001', nickname: 'Strangershed', owner: 'stranger', sharedWith: [] },
];
export const UNKNOWN_LOCK = id(0xfff);
export const UNKNOWN_ID = '00000000-0000-4000-8000-00000000dead';

export type Relation = 'own' | 'shared' | 'foreign';

export function lockRelation(actor: Actor, deviceId: string): Relation {
  const lock = LOCKS.find((l) => l.deviceId === deviceId.toLowerCase());
  if (lock?.owner === actor) return 'own';
  return lock?.sharedWith.includes(actor) ? 'shared' : 'foreign';
}

export const hookPath = (actor: Actor) => `/hook-${actor}-9c1e/{device_id}/{state}`;

/** Each account's registered app: a greppable name, and where its codes would go. */
export const appName = (actor: Actor) => `App-${actor}-5b2d`;
export const APP_REDIRECT = 'https://app.example/callback';

/**
 * The account authorizes its own app (through the use case: the OAuth flow itself is
 * test/http/oauth's): the authorized list then has one row of each account's, to revoke.
 */
export async function authorizeOwnApp(t: TestServer, accountId: string, appId: string): Promise<void> {
  const grantId = `matrix-grant-${randomUUID()}`;
  const app = await t.server.lockcloud.oauthApps.get(accountId, appId);
  await t.server.lockcloud.oauthConsents.record(
    accountId,
    app,
    { scopes: ['locks:read'], lockIds: null },
    grantId,
    sessionActor(accountId),
  );
}

function seed(receiver: string): Seed {
  return {
    accounts: ACTORS.map((a) => ({ email: PEOPLE[a].email, password: PEOPLE[a].password, verified: true })),
    api_keys: ACTORS.flatMap((a) => [
      { account: PEOPLE[a].email, key: PEOPLE[a].key },
      { account: PEOPLE[a].email, key: PEOPLE[a].spareKey },
    ]),
    locks: LOCKS.map((l) => ({
      device_id: l.deviceId,
      serial: l.serial,
      nickname: l.nickname,
      owner: PEOPLE[l.owner].email,
      shared_with: l.sharedWith.map((a) => PEOPLE[a].email),
    })),
    webhooks: ACTORS.map((a) => ({ account: PEOPLE[a].email, url: `${receiver}${hookPath(a)}` })),
  };
}

/** Everything one account holds: its credentials and the ids of its objects. */
export interface Holdings {
  readonly accountId: string;
  readonly token: string;
  readonly session: FormClient;
  readonly taskId: string;
  readonly deliveryId: string;
  /** The account's webhook endpoint, and the one message in its log (its own creation event). */
  readonly endpointId: string;
  readonly endpointDeliveryId: string;
  readonly spareKeyId: string;
  readonly keyIds: readonly string[];
  /** The account's registered app (a confidential one), which the account itself authorized. */
  readonly appId: string;
}

export interface World {
  readonly t: TestServer;
  readonly receiver: Receiver;
  readonly db: SqliteConnection;
  readonly of: Record<Actor, Holdings>;
  close(): Promise<void>;
}

/** Logs in to the dashboard and unlocks API Settings with the mailed code, as a person would. */
export async function unlockApiSettings(t: TestServer, c: FormClient, email: string): Promise<void> {
  await c.get('/dashboard/api-settings');
  const asked = await c.post('/dashboard/api-settings/code', {});
  if (!carriedOut(asked)) throw new Error(`API Settings code for ${email}: ${asked.status}`);
  const code = await latestCode(t, email, /API Settings code/);
  const confirmed = await c.post('/dashboard/api-settings/confirm', { code });
  if (!carriedOut(confirmed)) throw new Error(`API Settings confirm for ${email}: ${confirmed.status}`);
}

export async function startWorld(): Promise<World> {
  const receiver = await startReceiver();
  // Rate limits are the business of test/rate-limit: here one client sends thousands of requests.
  const t = await startServer({ seed: seed(receiver.url), flags: ['--no-rate-limit'] });
  const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
  const of = {} as Record<Actor, Holdings>;
  for (const a of ACTORS) {
    const p = PEOPLE[a];
    const accountId = (db.prepare('SELECT id FROM accounts WHERE email = ?').get(p.email) as { id: string })
      .id;
    const keys = db
      .prepare('SELECT id, prefix FROM api_keys WHERE account_id = ? ORDER BY prefix')
      .all(accountId) as { id: string; prefix: string }[];
    const spare = keys.find((k) => p.spareKey.startsWith(k.prefix));
    if (!spare) throw new Error(`no spare key for ${a}`);
    const session = new FormClient(t);
    await session.logIn(p.email, p.password);
    await unlockApiSettings(t, session, p.email);
    const own = LOCKS.find((l) => l.owner === a);
    if (!own) throw new Error(`${a} owns no lock`);
    const taskId = await startTask(t, own.deviceId, 'sync', p.key);
    await waitForTask(t, taskId, p.key);
    const endpoint = await makeEndpoint(t, p.key, `${receiver.url}/endpoint-${a}`);
    const { app } = await t.server.lockcloud.oauthApps.register(accountId, {
      name: appName(a),
      redirect_uris: [APP_REDIRECT],
    });
    await authorizeOwnApp(t, accountId, app.id);
    of[a] = {
      accountId,
      token: await login(t, p.email, p.password),
      session,
      taskId,
      deliveryId: await sendTestEvent(t, p.key),
      endpointId: endpoint.id,
      endpointDeliveryId: endpoint.deliveryId,
      spareKeyId: spare.id,
      keyIds: keys.map((k) => k.id),
      appId: app.id,
    };
  }
  await settle({ t, receiver, db, of, close: async () => {} });
  return {
    t,
    receiver,
    db,
    of,
    async close() {
      db.close();
      await t.close();
      await receiver.close();
    },
  };
}

/**
 * A webhook endpoint that takes only endpoint creations: its own (one message, for resend) and the
 * matrix's POST; nothing else the matrix does adds to its log.
 */
async function makeEndpoint(
  t: TestServer,
  key: string,
  url: string,
): Promise<{ id: string; deliveryId: string }> {
  const made = await answer(
    await t.request('/ext/webhook-endpoints', {
      method: 'POST',
      key,
      json: { url, types: ['webhook.endpoint_created'] },
    }),
  );
  const id = (made.body as { id?: string }).id;
  if (made.status !== 201 || id === undefined)
    throw new Error(`endpoint: ${made.status} ${JSON.stringify(made.body)}`);
  const deliveryId = await eventually(`the endpoint ${id}'s first message`, async () => {
    const res = await t.request(`/ext/webhook-endpoints/${id}/deliveries`, { key });
    const { deliveries } = (await res.json()) as { deliveries: { id: string }[] };
    return deliveries[0]?.id;
  });
  return { id, deliveryId };
}

/**
 * Waits until nothing runs in the background: no task processing, no delivery waiting to be sent.
 * Polls the database (the server's own timers end every task and send every delivery).
 */
export async function settle(w: World): Promise<void> {
  await eventually('the server to settle (no task processing, no delivery pending)', () => {
    const busy = w.db
      .prepare(
        `SELECT (SELECT count(*) FROM tasks WHERE status = 'processing')
              + (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'sending'))
              + (SELECT count(*) FROM webhook_relay r, event_sequence s
                  WHERE s.name = 'events' AND r.position < s.value) AS n`,
      )
      .get() as { n: number };
    return busy.n === 0;
  });
}

/**
 * The stored state, split by account: each row is filed under every account it belongs to (a task
 * under its author and the lock's owner, a share under the lock's owner). Columns that move on their
 * own (last use of a key, a delivery's progress, a session's expiry) are left out.
 */
export type Partitions = Map<string, string[]>;

const QUERIES: readonly string[] = [
  `SELECT 'account' AS t, id AS a, NULL AS b, id || email || coalesce(password_hash, '') || verified
     || coalesce(deleted_at, '') || coalesce(password_changed_at, '') AS row FROM accounts`,
  `SELECT 'key', account_id, NULL, id || key_hash || prefix FROM api_keys`,
  `SELECT 'lock', owner_id, NULL, device_id || serial || nickname || locked || battery || integration
     || access_point || app_open || responsive FROM locks`,
  `SELECT 'share', l.owner_id, NULL, s.device_id || s.account_id || s.id || s.role || s.state
     || coalesce(s.starts_at, '') || coalesce(s.ends_at, '') || coalesce(s.schedule, '') || s.one_time
     FROM grants s JOIN locks l USING (device_id)`,
  `SELECT 'task', t.account_id, l.owner_id, t.id || t.device_id || t.command || t.status
     || coalesce(t.successful, '') || coalesce(t.error, '') FROM tasks t LEFT JOIN locks l USING (device_id)`,
  `SELECT 'webhook', account_id, NULL, url || method || retries || coalesce(secret, '')
     || coalesce(previous_secret, '') FROM webhooks`,
  `SELECT 'delivery', d.account_id, l.owner_id, d.id || d.device_id || d.event || d.url || d.method
     || d.endpoint_id FROM webhook_deliveries d LEFT JOIN locks l USING (device_id)`,
  `SELECT 'endpoint', account_id, NULL, id || url || types || device_ids || retries || enabled
     || secret || coalesce(previous_secret, '') FROM webhook_endpoints`,
  `SELECT 'session', account_id, NULL, id || coalesce(api_unlocked_until, '') FROM sessions`,
  `SELECT 'token', account_id, NULL, id || issued_at FROM login_tokens`,
  // A refused login is recorded in the account's log on purpose (its owner's audit): the one write
  // a refusal makes.
  `SELECT 'event', account_id, NULL, id || type FROM events WHERE type <> 'account.login_failed'`,
  `SELECT 'idempotency', account_id, NULL, key_hash || fingerprint || task_id FROM idempotency_keys`,
  `SELECT 'app', account_id, NULL, id || name || redirect_uris || kind || coalesce(secret_hash, '')
     FROM oauth_apps`,
  // A consent is the authorizing account's, and concerns the app's developer too.
  `SELECT 'consent', c.account_id, p.account_id, c.app_id || c.scopes || coalesce(c.lock_ids, '')
     || c.grant_id FROM oauth_consents c JOIN oauth_apps p ON p.id = c.app_id`,
  `SELECT 'device', l.owner_id, NULL, d.device_id || d.locked || d.app_open || d.battery
     FROM sim_devices d JOIN locks l USING (device_id)`,
];

const lastReading = new WeakMap<SqliteConnection, { version: number; partitions: Partitions }>();

/**
 * Reads the partitions, or answers the last reading when the server has written nothing since
 * (SQLite's data_version moves with every commit of another connection).
 */
export function partitions(db: SqliteConnection): Partitions {
  const version = db.pragma('data_version', { simple: true }) as number;
  const last = lastReading.get(db);
  if (last?.version === version) return last.partitions;
  const read = readPartitions(db);
  lastReading.set(db, { version, partitions: read });
  return read;
}

function readPartitions(db: SqliteConnection): Partitions {
  const out: Partitions = new Map();
  for (const sql of QUERIES) {
    for (const r of db.prepare(sql).raw().all() as [string, string, string | null, string][]) {
      for (const account of new Set([r[1], r[2] ?? r[1]])) {
        const rows = out.get(account) ?? [];
        rows.push(`${r[0]}:${r[3]}`);
        out.set(account, rows);
      }
    }
  }
  for (const rows of out.values()) rows.sort();
  return out;
}

/** The accounts whose rows differ between two readings. */
export function changedAccounts(before: Partitions, after: Partitions): string[] {
  const accounts = new Set([...before.keys(), ...after.keys()]);
  return [...accounts].filter(
    (a) => JSON.stringify(before.get(a) ?? []) !== JSON.stringify(after.get(a) ?? []),
  );
}

/** Moves the actor's own lock back to locked (an allowed command unlocked it) and waits for it. */
export async function relock(w: World, actor: Actor, deviceId: string): Promise<void> {
  const taskId = await startTask(w.t, deviceId, 'lock', PEOPLE[actor].key);
  const ended = await waitForTask(w.t, taskId, PEOPLE[actor].key);
  if (ended.successful !== true) throw new Error(`relock of ${deviceId}: ${JSON.stringify(ended)}`);
}

/** The v3 view of a lock as its owner sees it. */
export async function lockedForOwner(w: World, deviceId: string): Promise<boolean> {
  const lock = LOCKS.find((l) => l.deviceId === deviceId);
  if (!lock) throw new Error(`no lock ${deviceId}`);
  const { status, body } = await answer(
    await w.t.request(`/public/lock/${deviceId}`, { key: PEOPLE[lock.owner].key }),
  );
  if (status !== 200) throw new Error(`owner read of ${deviceId}: ${status}`);
  return (body as { locked: boolean }).locked;
}
