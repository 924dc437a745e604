/**
 * The live streams behind the process's one follower and its StreamIndex (src/app/event-stream.ts,
 * src/app/stream-index.ts), over a real SQLite file: a stream of account A never gets B's events; a
 * share made in the same batch as its lock's events brings them to the guest (redacted), and its end
 * stops them; a stream closed while a batch is handed out takes nothing more of it and the others
 * take all of it, each event once, in order.
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
import { EventStreams, type OpenedStream, type StreamSink } from '../../../src/app/event-stream.ts';
import { type EventDraft, type LockEvent, shareEvent } from '../../../src/domain/event.ts';
import { eventually } from '../../support/eventually.ts';
import { ManualClock } from '../../support/manual-clock.ts';

interface Reader {
  readonly events: LockEvent[];
  readonly closed: string[];
  stream: OpenedStream;
}

describe('EventStreams over the StreamIndex', () => {
  let dir: string;
  let store: SqlStore;
  let log: EventLog;
  let follower: EventFollower;
  let streams: EventStreams;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-stream-index-'));
    store = await openSqliteStore(dir);
    const clock = new ManualClock();
    log = new EventLog(store.events, clock, cryptoRandom);
    follower = new EventFollower(store.events, clock, new LocalEventBus(() => {}), (e) =>
      assert.fail(String(e)),
    );
    streams = new EventStreams(follower, store.events, store.locks, clock);
  });
  after(async () => {
    streams.closeAll();
    follower.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lockEvent = (
    type: 'lock.locked' | 'lock.unlocked',
    accountId: string,
    deviceId: string,
  ): EventDraft => ({
    type,
    accountId,
    deviceId,
    actor: { kind: 'api_key', accountId, keyPrefix: 'abcd' },
    method: 'api_v3',
    taskId: null,
    data: {},
  });

  async function open(readerId: string, onEvent?: (reader: Reader) => void): Promise<Reader> {
    const reader = { events: [], closed: [] } as unknown as Reader;
    const sink: StreamSink = {
      event: (event) => {
        reader.events.push(event);
        onEvent?.(reader);
      },
      heartbeat: () => {},
      ready: async () => {},
      close: (reason) => reader.closed.push(reason),
    };
    reader.stream = await streams.openStream(readerId, {}, sink);
    await reader.stream.start();
    return reader;
  }

  /** Appends the drafts in one commit and wakes the follower: one batch. */
  async function commit(drafts: EventDraft[]): Promise<string[]> {
    const before = await store.events.head();
    await log.append(drafts);
    follower.wake();
    const written = await store.events.since(before, drafts.length);
    return written.map((e) => e.event.id);
  }

  it("never hands a stream of account A account B's events", async () => {
    const a = await open('acct-a');
    const b = await open('acct-b');
    const ids = await commit([
      lockEvent('lock.locked', 'acct-a', 'lock-a'),
      lockEvent('lock.locked', 'acct-b', 'lock-b'),
      lockEvent('lock.unlocked', 'acct-a', 'lock-a'),
      lockEvent('lock.unlocked', 'acct-b', 'lock-b'),
    ]);
    await eventually('both streams', () => a.events.length === 2 && b.events.length === 2);
    assert.deepEqual(
      a.events.map((e) => e.id),
      [ids[0], ids[2]],
    );
    assert.deepEqual(
      b.events.map((e) => e.id),
      [ids[1], ids[3]],
    );
    a.stream.end();
    b.stream.end();
  });

  it('brings a lock shared in the same batch to the guest, redacted, until the share ends', async () => {
    const guest = await open('acct-g');
    const owner = await open('acct-o');
    const actor = { kind: 'dashboard_session' as const, accountId: 'acct-o' };
    const ids = await commit([
      lockEvent('lock.locked', 'acct-o', 'lock-s'),
      shareEvent('share.created', 'acct-o', 'lock-s', 'acct-g', actor),
      lockEvent('lock.unlocked', 'acct-o', 'lock-s'),
      shareEvent('share.removed', 'acct-o', 'lock-s', 'acct-g', actor),
      lockEvent('lock.locked', 'acct-o', 'lock-s'),
    ]);
    await eventually("the owner's five", () => owner.events.length === 5);
    await commit([lockEvent('lock.unlocked', 'acct-g', 'lock-g')]);
    await eventually("the guest's own event", () => guest.events.length === 2);
    assert.equal(guest.events[0]?.id, ids[2]);
    assert.deepEqual(guest.events[0]?.actor, { kind: 'api_key' });
    assert.equal(guest.events[1]?.deviceId, 'lock-g');
    guest.stream.end();
    owner.stream.end();
  });

  it('takes a stream closed during a batch out of it; the others get all of it once, in order', async () => {
    let victim: Reader | undefined;
    // The first stream to hear an event closes the other (as a too_slow close would, mid-batch).
    const first = await open('acct-c', () => victim?.stream.close('too_slow'));
    victim = await open('acct-c');
    const third = await open('acct-c');
    const ids = await commit([
      lockEvent('lock.locked', 'acct-c', 'lock-c'),
      lockEvent('lock.unlocked', 'acct-c', 'lock-c'),
      lockEvent('lock.locked', 'acct-c', 'lock-c'),
    ]);
    await eventually('the two streams left', () => first.events.length === 3 && third.events.length === 3);
    assert.deepEqual(
      first.events.map((e) => e.id),
      ids,
    );
    assert.deepEqual(
      third.events.map((e) => e.id),
      ids,
    );
    assert.deepEqual(victim.events, []);
    assert.deepEqual(victim.closed, ['too_slow']);
    first.stream.end();
    third.stream.end();
    assert.equal(streams.count, 0);
  });
});
