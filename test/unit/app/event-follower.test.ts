/**
 * The process's one reader of the event log (src/app/event-follower.ts), over a real SQLite file:
 * every subscriber gets every batch once, in position order, from one read per wake-up however many
 * subscribe; wake-ups during a read make exactly one more read; a failed read is retried from the
 * same position.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SqlStore } from '../../../src/adapters/stores/sql/store.ts';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { cryptoRandom } from '../../../src/adapters/system/crypto.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import { EventFollower } from '../../../src/app/event-follower.ts';
import { EventLog } from '../../../src/app/event-log.ts';
import type { EventStore, SequencedEvent } from '../../../src/app/ports.ts';
import { eventually } from '../../support/eventually.ts';
import { ManualClock } from '../../support/manual-clock.ts';

describe('EventFollower', () => {
  let dir: string;
  let store: SqlStore;
  let log: EventLog;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-follower-'));
    store = await openSqliteStore(dir);
    log = new EventLog(store.events, new ManualClock(), cryptoRandom);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (count: number) =>
    log.append(
      Array.from({ length: count }, () => ({
        type: 'lock.online' as const,
        accountId: 'a',
        deviceId: 'd',
        actor: { kind: 'device' as const },
        method: null,
        taskId: null,
        data: {},
      })),
    );

  /** The store, counting reads; `hold` keeps the next read waiting until released. */
  function counting(inner: EventStore) {
    const counter = { reads: 0, hold: undefined as Promise<void> | undefined };
    const events: EventStore = {
      ...inner,
      head: () => inner.head(),
      positionOf: (id) => inner.positionOf(id),
      since: async (seq, limit) => {
        counter.reads++;
        if (counter.hold) await counter.hold;
        return inner.since(seq, limit);
      },
    };
    return { events, counter };
  }

  it('hands every subscriber each event once, in position order, from one read per wake-up', async () => {
    const { events, counter } = counting(store.events);
    const follower = new EventFollower(
      events,
      new ManualClock(),
      new LocalEventBus(() => {}),
      (e) => assert.fail(String(e)),
      {
        batch: 7,
      },
    );
    const got: number[][] = Array.from({ length: 50 }, () => []);
    const starts = await Promise.all(
      got.map((seen) => follower.subscribe((batch) => seen.push(...batch.map((e) => e.seq)))),
    );
    const start = starts[0]?.position ?? 0;
    assert.ok(starts.every((s) => s.position === start));
    await write(5);
    follower.wake();
    await eventually('the first five', () => got.every((seen) => seen.length === 5));
    assert.equal(counter.reads, 1, 'one read for fifty subscribers');
    // More than a batch: read in several, still in order.
    await write(20);
    follower.wake();
    await eventually('all 25', () => got.every((seen) => seen.length === 25));
    const expected = Array.from({ length: 25 }, (_, i) => start + i + 1);
    for (const seen of got) assert.deepEqual(seen, expected);
    follower.stop();
  });

  it('makes one more read for wake-ups during a read, and reads again after a failure', async () => {
    const { events, counter } = counting(store.events);
    const errors: unknown[] = [];
    const follower = new EventFollower(events, new ManualClock(), new LocalEventBus(() => {}), (e) =>
      errors.push(e),
    );
    const seen: SequencedEvent[] = [];
    await follower.subscribe((batch) => seen.push(...batch));
    let release = () => {};
    counter.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    follower.wake();
    await write(3);
    for (let i = 0; i < 10; i++) follower.wake();
    counter.hold = undefined;
    release();
    await eventually('the three events', () => seen.length === 3);
    // The held read (which may have seen none or all), then exactly one more.
    await eventually('the reads to settle', () => counter.reads === 2);
    // A failed read: logged, and the next wake-up reads from the same position.
    const failing = events.since;
    events.since = async () => {
      events.since = failing;
      throw new Error('database away');
    };
    await write(2);
    follower.wake();
    await eventually('the failure reported', () => errors.length === 1);
    follower.wake();
    await eventually('the two events after the failure', () => seen.length === 5);
    assert.deepEqual(
      seen.map((e) => e.seq),
      [...seen.map((e) => e.seq)].sort((a, b) => a - b),
    );
    follower.stop();
  });
});
