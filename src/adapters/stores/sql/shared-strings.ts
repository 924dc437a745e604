/**
 * One copy of a string that many rows repeat. A driver makes a new string for every text value of
 * every row it reads, so 100,000 locks read from the store held 100,000 copies of their owner's id,
 * ten of each access point's, and as many of 'UTC' (docs/performance-notes.md, "The read cache's
 * locks"). Rows read through here share the first copy seen instead.
 *
 * Bounded: past `max` distinct values the table starts afresh, so a fleet of unique values costs a
 * table of that size at most, never a leak; values read after that are shared again from then on.
 */
export class SharedStrings {
  private readonly held = new Map<string, string>();

  constructor(private readonly max: number) {}

  of(value: string): string {
    const held = this.held.get(value);
    if (held !== undefined) return held;
    if (this.held.size >= this.max) this.held.clear();
    this.held.set(value, value);
    return value;
  }

  ofNullable(value: string | null): string | null {
    return value === null ? null : this.of(value);
  }

  /** Distinct values held now (for tests of the bound). */
  get size(): number {
    return this.held.size;
  }
}

/**
 * The values a lock's row repeats across locks: owners' and access points' ids, firmware versions,
 * time zones, access points' session epochs. 65,536 covers 10,000 access points with their epochs
 * and owners several times over, in a table of a few MB.
 */
export const LOCK_ROW_STRINGS = new SharedStrings(65_536);
