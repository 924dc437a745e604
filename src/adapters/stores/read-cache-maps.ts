/**
 * The read cache's maps (read-cache.ts): bounded, and told of every drop, so a store read that a
 * write overtook is not kept.
 */

/**
 * Counts the cache's drops. A read from the store is in flight across awaits; a write that commits
 * and drops meanwhile may be one the read did not see, so what the read found is kept only if no
 * drop happened since it began (`BoundedMap.fill`).
 */
export class Drops {
  count = 0;
}

/** `write`, then `drop` with the same arguments once it is done, even when it failed. */
export function dropsAfter<A extends unknown[], R>(
  write: (...args: A) => Promise<R>,
  drop: (...args: A) => void,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await write(...args);
    } finally {
      drop(...args);
    }
  };
}

/** A bounded map: a full map starts afresh rather than tracking recency on the hot path. */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly maxEntries: number,
    private readonly drops: Drops,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /**
   * `key`'s entry; when there is none, what `read` finds in the store, kept if found and nothing was
   * dropped while it read.
   */
  through(key: string, read: () => Promise<V | undefined>): V | Promise<V | undefined> {
    const cached = this.entries.get(key);
    return cached !== undefined ? cached : this.fillFrom(key, read);
  }

  private async fillFrom(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const since = this.drops.count;
    const found = await read();
    if (found !== undefined) this.fill(key, found, since);
    return found;
  }

  /** Keeps what a store read found, unless something was dropped since `since` (drops.count then). */
  fill(key: string, value: V, since: number): void {
    if (since !== this.drops.count) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.drops.count++;
    this.entries.delete(key);
  }

  clear(): void {
    this.drops.count++;
    this.entries.clear();
  }

  /** Replaces an entry's value (a write this process made and knows). */
  update(key: string, change: (value: V) => V): void {
    const value = this.entries.get(key);
    if (value !== undefined) this.entries.set(key, change(value));
  }

  /**
   * What a write through this store made, as the store answered it: kept as a read would keep it,
   * and a drop all the same, so no read begun before the write keeps what it found.
   */
  put(key: string, value: V): void {
    this.drops.count++;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }
}
