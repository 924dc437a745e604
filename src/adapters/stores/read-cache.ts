import type {
  AccountStore,
  ApiKeyStore,
  LockStore,
  OAuthAppStore,
  OAuthRecordStore,
  Store,
  TokenStore,
} from '../../app/ports.ts';

export interface ReadCacheOptions {
  /**
   * A number that changes whenever another connection (another process: the admin CLI beside the
   * server) has committed to the store since the last call; SQLite's `PRAGMA data_version`. Checked
   * before every cached read, so a write made elsewhere is seen by the next request, as without the
   * cache.
   */
  readonly writesElsewhere: () => number;
  /** Entries per map; past it the map starts afresh (the hot set refills at once). */
  readonly maxEntries: number;
}

/** A bounded map: a full map starts afresh rather than tracking recency on the hot path. */
class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Replaces an entry's value (a write this process made and knows). */
  update(key: string, change: (value: V) => V): void {
    const value = this.entries.get(key);
    if (value !== undefined) this.entries.set(key, change(value));
  }
}

type KeyFound = Awaited<ReturnType<ApiKeyStore['findByHash']>>;
type TokenFound = Awaited<ReturnType<TokenStore['findByHash']>>;
type LockFound = Awaited<ReturnType<LockStore['get']>>;
type BearerFound = Awaited<ReturnType<OAuthRecordStore['findBearer']>>;

/**
 * Every v3 and v1 request reads its credential, and a status read one lock: the hot path. This keeps
 * those reads in memory in front of the store. A write made through this store drops what it may have
 * changed at once; a write committed by another process drops everything before the next cached read
 * (`writesElsewhere`), so the cache never answers what the store would not. Only found rows are kept:
 * an unknown key always reaches the store.
 *
 * Only for a store one server has to itself (SQLite): with several servers on PostgreSQL there is no
 * cheap way to learn of the others' commits, and they change lock status many times a second.
 */
export function withReadCache(store: Store, options: ReadCacheOptions): Store {
  const keys = new BoundedMap<NonNullable<KeyFound>>(options.maxEntries);
  const keyHashById = new BoundedMap<string>(options.maxEntries);
  const tokens = new BoundedMap<NonNullable<TokenFound>>(options.maxEntries);
  const locks = new BoundedMap<NonNullable<LockFound>>(options.maxEntries);
  const bearers = new BoundedMap<NonNullable<BearerFound>>(options.maxEntries);

  const dropCredentials = (): void => {
    keys.clear();
    keyHashById.clear();
    tokens.clear();
    bearers.clear();
  };
  let seenVersion = options.writesElsewhere();
  // Asking SQLite costs about 2 µs, a fifth of a cached request's CPU if asked at every read. The
  // answer holds until the current callback's work is done (process.nextTick): no request's bytes
  // can arrive before then, so no request can have been sent after a commit this check missed.
  let checkedThisTick = false;
  const tickDone = (): void => {
    checkedThisTick = false;
  };
  /** Before a cached read: if another process committed meanwhile, nothing cached still holds. */
  const checkElsewhere = (): void => {
    if (checkedThisTick) return;
    checkedThisTick = true;
    process.nextTick(tickDone);
    const version = options.writesElsewhere();
    if (version === seenVersion) return;
    seenVersion = version;
    dropCredentials();
    locks.clear();
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
      checkElsewhere();
      const cached = keys.get(hash);
      if (cached !== undefined) return cached;
      const found = await store.apiKeys.findByHash(hash);
      if (found !== undefined) {
        keys.set(hash, found);
        // A touch of a key no longer mapped only skips updating the cache.
        keyHashById.set(found.key.id, hash);
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
    async findByHash(hash) {
      checkElsewhere();
      const cached = tokens.get(hash);
      if (cached !== undefined) return cached;
      const found = await store.tokens.findByHash(hash);
      if (found !== undefined) tokens.set(hash, found);
      return found;
    },
    async purgeIssuedBefore(cutoff) {
      const purged = await store.tokens.purgeIssuedBefore(cutoff);
      if (purged > 0) dropCredentials();
      return purged;
    },
  };

  const lockStore: LockStore = {
    async get(deviceId) {
      checkElsewhere();
      const cached = locks.get(deviceId);
      if (cached !== undefined) return cached;
      const found = await store.locks.get(deviceId);
      if (found !== undefined) locks.set(deviceId, found);
      return found;
    },
    insert: async (lock) => {
      await store.locks.insert(lock);
      locks.delete(lock.deviceId);
    },
    update: async (deviceId, patch) => {
      await store.locks.update(deviceId, patch);
      locks.delete(deviceId);
    },
    readStatus: (deviceId) => store.locks.readStatus(deviceId),
    writeStatusIf: async (deviceId, version, status, mark, events) => {
      const written = await store.locks.writeStatusIf(deviceId, version, status, mark, events);
      if (written) locks.delete(deviceId);
      return written;
    },
    updateSettingsIf: async (deviceId, version, settings, events) => {
      const written = await store.locks.updateSettingsIf(deviceId, version, settings, events);
      if (written) locks.delete(deviceId);
      return written;
    },
    writeStatusIfAndEnd: async (deviceId, version, status, mark, events, end) => {
      const written = await store.locks.writeStatusIfAndEnd(deviceId, version, status, mark, events, end);
      if (written.written) locks.delete(deviceId);
      return written;
    },
    releaseAccount: async (accountId) => {
      const released = await store.locks.releaseAccount(accountId);
      locks.clear();
      return released;
    },
    listOfflineDue: (cutoff, limit) => store.locks.listOfflineDue(cutoff, limit),
    announceOffline: async (deviceId, offlineSince, events) => {
      const announced = await store.locks.announceOffline(deviceId, offlineSince, events);
      if (announced) locks.delete(deviceId);
      return announced;
    },
    listOwnedBy: (accountId) => store.locks.listOwnedBy(accountId),
    share: (deviceId, accountId, events, made) => store.locks.share(deviceId, accountId, events, made),
    countByOwner: () => store.locks.countByOwner(),
    listVisibleTo: (accountId) => store.locks.listVisibleTo(accountId),
    isSharedWith: (deviceId, accountId) => store.locks.isSharedWith(deviceId, accountId),
    listByAccessPoint: (apId) => store.locks.listByAccessPoint(apId),
    sharesOf: (deviceId) => store.locks.sharesOf(deviceId),
    unshare: (deviceId, accountId, events) => store.locks.unshare(deviceId, accountId, events),
  };

  // An OAuth access token is read with its consent, app and account (OAuthRecordStore.findBearer):
  // any OAuth write through this store drops every cached one (a revoked token, a withdrawn or
  // narrowed consent, a renamed or deleted app, a use recorded), as does a commit elsewhere.
  const dropping =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        bearers.clear();
      }
    };
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
    async findBearer(idHash) {
      checkElsewhere();
      const hit = bearers.get(idHash);
      if (hit !== undefined) return hit;
      const found = await records.findBearer(idHash);
      if (found !== undefined) bearers.set(idHash, found);
      return found;
    },
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
    // Nothing read from grants is cached: a revocation takes effect on the next request.
    grants: store.grants,
    tokens: tokenStore,
    tasks: store.tasks,
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
      dropCredentials();
      locks.clear();
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return cached;
}
