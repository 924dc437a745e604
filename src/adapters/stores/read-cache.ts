import type {
  AccountStore,
  ApiKeyStore,
  GrantStore,
  LockStatusRead,
  LockStore,
  OAuthAppStore,
  OAuthRecordStore,
  Store,
  TokenStore,
} from '../../app/ports.ts';
import { type Lock, sameLock } from '../../domain/lock.ts';
import type { Task } from '../../domain/task.ts';
import { BoundedMap, Drops, dropsAfter } from './read-cache-maps.ts';
import { cachedTasks } from './read-cache-tasks.ts';

/**
 * A number that changes whenever another connection (another process: the admin CLI, another
 * server) has committed to the store since the last call. Asked before every cached read, so a write
 * made elsewhere is seen by the next request, as without the cache. Answered:
 * - at once, a number: SQLite's `PRAGMA data_version`;
 * - later, once the store has answered a fence sent after the call: PostgreSQL's notifications
 *   (postgres/commits-elsewhere.ts);
 * - undefined, now or later, when it cannot be known (the connection that listens is down): the
 *   read goes to the store and nothing is kept.
 */
export type WritesElsewhere = () => number | undefined | Promise<number | undefined>;

export interface ReadCacheOptions {
  readonly writesElsewhere: WritesElsewhere;
  /** Entries per map; past it the map starts afresh (the hot set refills at once). */
  readonly maxEntries: number;
}

type KeyFound = Awaited<ReturnType<ApiKeyStore['findByHash']>>;
type TokenFound = Awaited<ReturnType<TokenStore['findByHash']>>;
type BearerFound = Awaited<ReturnType<OAuthRecordStore['findBearer']>>;

/**
 * Every v3 and v1 request reads its credential, and a status read one lock or an account's list of
 * them; a command reads its lock, its device's reports read it again to write it, and the client
 * polls the task: the hot paths. This keeps those reads in memory in front of the store. A write
 * made through this store drops what it may have changed at once, or, where the store answers what
 * it wrote (a lock's status, a task), keeps that; a write committed by another process drops
 * everything before the next cached read (`writesElsewhere`), so the cache never answers what the
 * store would not. Only found rows are kept: an unknown key always reaches the store.
 *
 * On SQLite the check is a read of the WAL-index header; on PostgreSQL one `SELECT 1` on the
 * listening connection, shared by every read that waits for it (postgres/commits-elsewhere.ts).
 */
export function withReadCache(store: Store, options: ReadCacheOptions): Store {
  const drops = new Drops();
  const keys = new BoundedMap<NonNullable<KeyFound>>(options.maxEntries, drops);
  const keyHashById = new BoundedMap<string>(options.maxEntries, drops);
  const tokens = new BoundedMap<NonNullable<TokenFound>>(options.maxEntries, drops);
  // A lock as its status is read (the lock, its status version, the last report's mark): what a
  // read of the lock, a command and a device report's compare-and-set all start from.
  const locks = new BoundedMap<LockStatusRead>(options.maxEntries, drops);
  const tasks = new BoundedMap<Task>(options.maxEntries, drops);
  const bearers = new BoundedMap<NonNullable<BearerFound>>(options.maxEntries, drops);
  // An account's lock lists (v3's GET /public/locks, v1's GET /v1/locks): each depends on every lock
  // it may hold and on the grants, so any lock or grant write drops them all.
  const owned = new BoundedMap<readonly Lock[]>(options.maxEntries, drops);
  const visible = new BoundedMap<readonly Lock[]>(options.maxEntries, drops);
  const dropLists = (): void => {
    owned.clear();
    visible.clear();
  };
  /** A lock write: the lock itself and every list are dropped once it is done, even if it failed. */
  const lockWrite = <A extends unknown[], R>(
    write: (...args: A) => Promise<R>,
    deviceId?: (...args: A) => string,
  ): ((...args: A) => Promise<R>) =>
    dropsAfter(write, (...args) => {
      dropLists();
      if (deviceId === undefined) locks.clear();
      else locks.delete(deviceId(...args));
    });
  /** A list read: from memory when held, a copy either way (callers may sort or change theirs). */
  const listed = async (
    map: BoundedMap<readonly Lock[]>,
    accountId: string,
    read: () => Promise<Lock[]>,
  ): Promise<Lock[]> => {
    const fresh = holds();
    // Awaited only when it is a promise (PostgreSQL): on SQLite the hot path takes no extra turn.
    if (fresh !== true && !(await fresh)) return read();
    const cached = map.get(accountId);
    if (cached !== undefined) return [...cached];
    const since = drops.count;
    const found = await read();
    // The status cache's object where it holds the same lock: a fleet's locks are held once, not twice.
    const kept = found.map((lock) => {
      const held = locks.get(lock.deviceId)?.lock;
      return held !== undefined && sameLock(held, lock) ? held : lock;
    });
    map.fill(accountId, kept, since);
    return found;
  };

  const dropCredentials = (): void => {
    keys.clear();
    keyHashById.clear();
    tokens.clear();
    bearers.clear();
  };
  const dropAll = (): void => {
    dropCredentials();
    locks.clear();
    tasks.clear();
    dropLists();
  };
  // Where the count of other processes' commits stands as the cache starts: what a write made
  // through it keeps before its first read must not be dropped as if another process had written.
  const initial = options.writesElsewhere();
  let seenVersion = typeof initial === 'number' ? initial : undefined;
  // Asking SQLite costs about 2 µs, a fifth of a cached request's CPU if asked at every read. An
  // answer given at once holds until the current callback's work is done (process.nextTick): no
  // request's bytes can arrive before then, so no request can have been sent after a commit this
  // check missed. An answer that came later (a fence) holds only for the reads that waited for it.
  let checkedThisTick = false;
  const tickDone = (): void => {
    checkedThisTick = false;
  };
  /** Drops everything when the version moved; whether what is cached may be answered. */
  const settle = (version: number | undefined): boolean => {
    if (version !== seenVersion || version === undefined) {
      seenVersion = version;
      dropAll();
    }
    return version !== undefined;
  };
  if (typeof initial === 'object') void initial.then((version) => settle(version));
  /**
   * Before a cached read: if another process committed meanwhile, nothing cached still holds. True:
   * the cache may answer; false: read the store and keep nothing. Synchronous on SQLite, so the hot
   * path awaits nothing more than it did.
   */
  const holds = (): boolean | Promise<boolean> => {
    if (checkedThisTick) return true;
    const version = options.writesElsewhere();
    if (typeof version === 'object') return version.then(settle);
    checkedThisTick = version !== undefined;
    if (checkedThisTick) process.nextTick(tickDone);
    return settle(version);
  };
  /** `map`'s entry for `key` when what the cache holds still holds, else the store's (kept if it may be). */
  const cachedRead = <V>(
    map: BoundedMap<V>,
    key: string,
    read: () => Promise<V | undefined>,
  ): V | Promise<V | undefined> => {
    const fresh = holds();
    if (fresh === true) return map.through(key, read);
    if (fresh === false) return read();
    return fresh.then((ok) => (ok ? map.through(key, read) : read()));
  };

  const accounts: AccountStore = {
    insert: (account) => store.accounts.insert(account),
    findByEmail: (email) => store.accounts.findByEmail(email),
    findById: (id) => store.accounts.findById(id),
    list: () => store.accounts.list(),
    // A deleted account or a new password ends its keys and tokens.
    update: async (id, patch, events) => {
      await store.accounts.update(id, patch, events);
      dropCredentials();
    },
  };

  // A cached key carries its limits (scopes, locks, expiry): they are written once, with the key, so
  // only touch changes a cached key. A write that changes limits must drop the key, as remove does.
  const apiKeys: ApiKeyStore = {
    insert: (key, events) => store.apiKeys.insert(key, events),
    listForAccount: (accountId) => store.apiKeys.listForAccount(accountId),
    async findByHash(hash) {
      const fresh = holds();
      if (fresh !== true && !(await fresh)) return store.apiKeys.findByHash(hash);
      const cached = keys.get(hash);
      if (cached !== undefined) return cached;
      const since = drops.count;
      const found = await store.apiKeys.findByHash(hash);
      if (found !== undefined) {
        keys.fill(hash, found, since);
        // A touch of a key no longer mapped only skips updating the cache.
        keyHashById.fill(found.key.id, hash, since);
      }
      return found;
    },
    async touch(id, at, ip) {
      await store.apiKeys.touch(id, at, ip);
      const hash = keyHashById.get(id);
      const lastUsedIp = ip === undefined ? {} : { lastUsedIp: ip };
      if (hash !== undefined)
        keys.update(hash, (found) => ({ ...found, key: { ...found.key, lastUsedAt: at, ...lastUsedIp } }));
    },
    async remove(accountId, id, events) {
      const removed = await store.apiKeys.remove(accountId, id, events);
      dropCredentials();
      return removed;
    },
  };

  const tokenStore: TokenStore = {
    insert: (token) => store.tokens.insert(token),
    findByHash: async (hash) => cachedRead(tokens, hash, () => store.tokens.findByHash(hash)),
    async purgeIssuedBefore(cutoff) {
      const purged = await store.tokens.purgeIssuedBefore(cutoff);
      if (purged > 0) dropCredentials();
      return purged;
    },
  };

  const readStatus = async (deviceId: string): Promise<LockStatusRead | undefined> =>
    cachedRead(locks, deviceId, () => store.locks.readStatus(deviceId));
  /**
   * A status write keeps the lock as the store answers it written (so the next command, report and
   * read need not read it again); a lost compare-and-set or a failure drops it: another writer
   * moved the row, and the next read goes to the store. The lists are dropped either way.
   */
  const statusWritten = (deviceId: string, written: LockStatusRead | undefined): void => {
    dropLists();
    if (written) locks.put(deviceId, written);
    else locks.delete(deviceId);
  };

  const lockStore: LockStore = {
    get: async (deviceId) => (await readStatus(deviceId))?.lock,
    insert: lockWrite(
      (lock) => store.locks.insert(lock),
      (lock) => lock.deviceId,
    ),
    update: lockWrite(
      (deviceId, patch) => store.locks.update(deviceId, patch),
      (deviceId) => deviceId,
    ),
    readStatus,
    async writeStatusIf(deviceId, version, status, mark, events) {
      let written: LockStatusRead | undefined;
      try {
        written = await store.locks.writeStatusIf(deviceId, version, status, mark, events);
        return written;
      } finally {
        statusWritten(deviceId, written);
      }
    },
    updateSettingsIf: lockWrite(
      (deviceId, version, settings, events) =>
        store.locks.updateSettingsIf(deviceId, version, settings, events),
      (deviceId) => deviceId,
    ),
    async writeStatusIfAndEnd(deviceId, version, status, mark, events, end) {
      let result: Awaited<ReturnType<LockStore['writeStatusIfAndEnd']>> | undefined;
      try {
        result = await store.locks.writeStatusIfAndEnd(deviceId, version, status, mark, events, end);
        return result;
      } finally {
        statusWritten(deviceId, result?.written ? result.status : undefined);
        if (result?.written && result.ended) tasks.put(end.taskId, result.ended);
        else tasks.delete(end.taskId);
      }
    },
    releaseAccount: lockWrite((accountId) => store.locks.releaseAccount(accountId)),
    listOfflineDue: (cutoff, limit) => store.locks.listOfflineDue(cutoff, limit),
    announceOffline: lockWrite(
      (deviceId, offlineSince, events) => store.locks.announceOffline(deviceId, offlineSince, events),
      (deviceId) => deviceId,
    ),
    listOwnedBy: (accountId) => listed(owned, accountId, () => store.locks.listOwnedBy(accountId)),
    share: lockWrite(
      (deviceId, accountId, events, made) => store.locks.share(deviceId, accountId, events, made),
      (deviceId) => deviceId,
    ),
    countByOwner: () => store.locks.countByOwner(),
    listVisibleTo: (accountId) => listed(visible, accountId, () => store.locks.listVisibleTo(accountId)),
    isSharedWith: (deviceId, accountId) => store.locks.isSharedWith(deviceId, accountId),
    listByAccessPoint: (apId) => store.locks.listByAccessPoint(apId),
    sharesOf: (deviceId) => store.locks.sharesOf(deviceId),
    unshare: lockWrite(
      (deviceId, accountId, events) => store.locks.unshare(deviceId, accountId, events),
      (deviceId) => deviceId,
    ),
  };

  // Grants decide which locks a guest sees (listVisibleTo): every grant write drops the lists.
  // Nothing read from grants is cached itself: a revocation takes effect on the next request.
  const grantWrite = <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    dropsAfter(write, dropLists);
  const grants: GrantStore = {
    invite: grantWrite((grant, events) => store.grants.invite(grant, events)),
    get: (id) => store.grants.get(id),
    getFor: (deviceId, guestId) => store.grants.getFor(deviceId, guestId),
    listForLock: (deviceId) => store.grants.listForLock(deviceId),
    listForGuest: (guestId, states) => store.grants.listForGuest(guestId, states),
    updateStateIf: grantWrite((id, from, to, at, events) =>
      store.grants.updateStateIf(id, from, to, at, events),
    ),
    updateTermsIf: grantWrite((id, change, events) => store.grants.updateTermsIf(id, change, events)),
    revoke: grantWrite((id, at, events) => store.grants.revoke(id, at, events)),
    markUsedIf: grantWrite((id, at, events) => store.grants.markUsedIf(id, at, events)),
  };

  // An OAuth access token is read with its consent, app and account (OAuthRecordStore.findBearer):
  // any OAuth write through this store drops every cached one (a revoked token, a withdrawn or
  // narrowed consent, a renamed or deleted app, a use recorded), as does a commit elsewhere.
  const dropping = <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    dropsAfter(write, () => bearers.clear());
  const records = store.oauthRecords;
  const oauthRecords: OAuthRecordStore = {
    upsert: dropping((model, idHash, record) => records.upsert(model, idHash, record)),
    find: (model, idHash) => records.find(model, idHash),
    findByUid: (model, uid) => records.findByUid(model, uid),
    consume: dropping((model, idHash, at) => records.consume(model, idHash, at)),
    destroy: dropping((model, idHash) => records.destroy(model, idHash)),
    revokeGrant: dropping((grantId, model) => records.revokeGrant(grantId, model)),
    revokeClient: dropping((clientId) => records.revokeClient(clientId)),
    purgeExpired: dropping((before) => records.purgeExpired(before)),
    findBearer: async (idHash) => cachedRead(bearers, idHash, () => records.findBearer(idHash)),
  };
  const apps = store.oauthApps;
  const oauthApps: OAuthAppStore = {
    insert: (app) => apps.insert(app),
    find: (id) => apps.find(id),
    secretHash: (id) => apps.secretHash(id),
    listForAccount: (accountId) => apps.listForAccount(accountId),
    update: dropping((accountId, id, patch) => apps.update(accountId, id, patch)),
    replaceSecret: (accountId, id, hash, prefix, at) => apps.replaceSecret(accountId, id, hash, prefix, at),
    delete: dropping((accountId, id, events) => apps.delete(accountId, id, events)),
    findConsent: (accountId, appId) => apps.findConsent(accountId, appId),
    putConsent: dropping((consent, events) => apps.putConsent(consent, events)),
    listConsents: (accountId) => apps.listConsents(accountId),
    deleteConsent: dropping((accountId, appId, events) => apps.deleteConsent(accountId, appId, events)),
    consentsOf: (appId) => apps.consentsOf(appId),
    touchConsent: dropping((grantId, at) => apps.touchConsent(grantId, at)),
  };

  const cached: Store = {
    accounts,
    apiKeys,
    locks: lockStore,
    grants,
    tokens: tokenStore,
    tasks: cachedTasks(store.tasks, tasks, (id) => cachedRead(tasks, id, () => store.tasks.get(id))),
    idempotencyKeys: store.idempotencyKeys,
    webhooks: store.webhooks,
    deliveries: store.deliveries,
    webhookEndpoints: store.webhookEndpoints,
    simDevices: store.simDevices,
    accessPoints: store.accessPoints,
    blocks: store.blocks,
    sessions: store.sessions,
    codes: store.codes,
    events: store.events,
    oauthApps,
    oauthRecords,
    getMeta: (key) => store.getMeta(key),
    setMeta: (key, value) => store.setMeta(key, value),
    isEmpty: () => store.isEmpty(),
    snapshot: () => store.snapshot(),
    // The sandbox's reset puts every row back: nothing cached still holds.
    restore: async (snapshot) => {
      await store.restore(snapshot);
      dropAll();
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return cached;
}
