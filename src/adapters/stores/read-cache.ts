import { performance } from 'node:perf_hooks';
import type { AccountStore, ApiKeyStore, LockStore, Store, TokenStore } from '../../app/ports.ts';

/** What a cached read may depend on: credentials (keys, tokens, their accounts) or locks. */
export type CacheScope = 'credentials' | 'locks';

export interface ReadCacheOptions {
  /** How long an entry is trusted: the bound on seeing a write made by another process. */
  readonly ttlMs: number;
  /** Entries per map; past it the map starts afresh (the hot set refills at once). */
  readonly maxEntries: number;
  /**
   * Cache lock reads too. Only for a process alone on its store: other servers change lock status
   * many times a second, and a status read must show a change the moment its task has ended.
   */
  readonly cacheLocks: boolean;
  /** Told of every invalidation made here, so other processes can drop theirs too. */
  readonly onInvalidate?: (scope: CacheScope) => void;
  readonly now?: () => number;
}

class TtlMap<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, at: this.now() });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Replaces a live entry's value, keeping its age (a write this process made and knows). */
  update(key: string, change: (value: V) => V): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.value = change(entry.value);
  }
}

type KeyFound = Awaited<ReturnType<ApiKeyStore['findByHash']>>;
type TokenFound = Awaited<ReturnType<TokenStore['findByHash']>>;
type LockFound = Awaited<ReturnType<LockStore['get']>>;

export interface CachedStore {
  readonly store: Store;
  /** Drops what the scope's reads cached (another process wrote). */
  invalidate(scope: CacheScope): void;
}

/**
 * Every v3 and v1 request reads its credential, and a status read one lock: the hot path. This keeps
 * those reads in memory in front of any store. A write made through this store drops what it may
 * have changed at once; a write made by another process (the admin CLI beside the server, another
 * server) is seen within `ttlMs`, or at once when that process shares its invalidations (main.ts
 * relays them over Redis). Only found rows are kept: an unknown key always reaches the store.
 */
export function withReadCache(store: Store, options: ReadCacheOptions): CachedStore {
  const now = options.now ?? (() => performance.now());
  const keys = new TtlMap<NonNullable<KeyFound>>(options.ttlMs, options.maxEntries, now);
  const keyHashById = new Map<string, string>();
  const tokens = new TtlMap<NonNullable<TokenFound>>(options.ttlMs, options.maxEntries, now);
  const locks = new TtlMap<NonNullable<LockFound>>(options.ttlMs, options.maxEntries, now);

  const drop = (scope: CacheScope): void => {
    if (scope === 'credentials') {
      keys.clear();
      keyHashById.clear();
      tokens.clear();
    } else locks.clear();
  };
  const invalidate = (scope: CacheScope): void => {
    drop(scope);
    options.onInvalidate?.(scope);
  };
  const dropLock = (deviceId: string): void => {
    locks.delete(deviceId);
    options.onInvalidate?.('locks');
  };

  const accounts: AccountStore = {
    insert: (account) => store.accounts.insert(account),
    findByEmail: (email) => store.accounts.findByEmail(email),
    findById: (id) => store.accounts.findById(id),
    list: () => store.accounts.list(),
    // A deleted account or a new password ends its keys and tokens.
    update: async (id, patch) => {
      await store.accounts.update(id, patch);
      invalidate('credentials');
    },
  };

  const apiKeys: ApiKeyStore = {
    insert: (key) => store.apiKeys.insert(key),
    listForAccount: (accountId) => store.apiKeys.listForAccount(accountId),
    async findByHash(hash) {
      const cached = keys.get(hash);
      if (cached !== undefined) return cached;
      const found = await store.apiKeys.findByHash(hash);
      if (found !== undefined) {
        keys.set(hash, found);
        keyHashById.set(found.key.id, hash);
      }
      return found;
    },
    async touch(id, at) {
      await store.apiKeys.touch(id, at);
      const hash = keyHashById.get(id);
      if (hash !== undefined)
        keys.update(hash, (found) => ({ ...found, key: { ...found.key, lastUsedAt: at } }));
    },
    async remove(accountId, id) {
      const removed = await store.apiKeys.remove(accountId, id);
      invalidate('credentials');
      return removed;
    },
  };

  const tokenStore: TokenStore = {
    insert: (token) => store.tokens.insert(token),
    async findByHash(hash) {
      const cached = tokens.get(hash);
      if (cached !== undefined) return cached;
      const found = await store.tokens.findByHash(hash);
      if (found !== undefined) tokens.set(hash, found);
      return found;
    },
    async purgeIssuedBefore(cutoff) {
      const purged = await store.tokens.purgeIssuedBefore(cutoff);
      if (purged > 0) invalidate('credentials');
      return purged;
    },
  };

  const lockStore: LockStore = !options.cacheLocks
    ? store.locks
    : {
        async get(deviceId) {
          const cached = locks.get(deviceId);
          if (cached !== undefined) return cached;
          const found = await store.locks.get(deviceId);
          if (found !== undefined) locks.set(deviceId, found);
          return found;
        },
        insert: async (lock) => {
          await store.locks.insert(lock);
          dropLock(lock.deviceId);
        },
        update: async (deviceId, patch) => {
          await store.locks.update(deviceId, patch);
          dropLock(deviceId);
        },
        readStatus: (deviceId) => store.locks.readStatus(deviceId),
        writeStatusIf: async (deviceId, version, status, mark) => {
          const written = await store.locks.writeStatusIf(deviceId, version, status, mark);
          if (written) dropLock(deviceId);
          return written;
        },
        releaseAccount: async (accountId) => {
          const released = await store.locks.releaseAccount(accountId);
          invalidate('locks');
          return released;
        },
        listOwnedBy: (accountId) => store.locks.listOwnedBy(accountId),
        share: (deviceId, accountId) => store.locks.share(deviceId, accountId),
        countByOwner: () => store.locks.countByOwner(),
        listVisibleTo: (accountId) => store.locks.listVisibleTo(accountId),
        isSharedWith: (deviceId, accountId) => store.locks.isSharedWith(deviceId, accountId),
        listByAccessPoint: (apId) => store.locks.listByAccessPoint(apId),
        sharesOf: (deviceId) => store.locks.sharesOf(deviceId),
        unshare: (deviceId, accountId) => store.locks.unshare(deviceId, accountId),
      };

  const cached: Store = {
    accounts,
    apiKeys,
    locks: lockStore,
    tokens: tokenStore,
    tasks: store.tasks,
    webhooks: store.webhooks,
    deliveries: store.deliveries,
    simDevices: store.simDevices,
    accessPoints: store.accessPoints,
    blocks: store.blocks,
    sessions: store.sessions,
    codes: store.codes,
    getMeta: (key) => store.getMeta(key),
    setMeta: (key, value) => store.setMeta(key, value),
    isEmpty: () => store.isEmpty(),
    snapshot: () => store.snapshot(),
    // The sandbox's reset puts every row back: nothing cached still holds.
    restore: async (snapshot) => {
      await store.restore(snapshot);
      invalidate('credentials');
      invalidate('locks');
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: cached, invalidate: drop };
}
