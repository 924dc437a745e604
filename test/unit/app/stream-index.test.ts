/**
 * Which live streams an event concerns (src/app/stream-index.ts): a settled stream takes its
 * account's events, the shares made or ended for its reader and its shared locks' lock events, each
 * once and in order; a stream catching up takes everything; streams added or removed while a batch
 * is handed out neither break it nor take an event twice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SequencedEvent } from '../../../src/app/ports.ts';
import { type IndexedStream, StreamIndex } from '../../../src/app/stream-index.ts';
import type { EventType, LockEvent } from '../../../src/domain/event.ts';

let seq = 0;
function event(
  type: EventType,
  accountId: string,
  deviceId: string | null = null,
  data: Record<string, unknown> = {},
): SequencedEvent {
  seq++;
  const e: LockEvent = {
    id: `evt_${String(seq).padStart(28, '0')}`,
    type,
    occurredAt: seq,
    accountId,
    deviceId,
    actor: { kind: 'device' },
    method: null,
    taskId: null,
    data,
  };
  return { seq, event: e };
}

interface Recorder extends IndexedStream {
  readonly got: number[];
}
function recorder(readerId: string, onTake?: (item: SequencedEvent) => void): Recorder {
  const got: number[] = [];
  return {
    readerId,
    got,
    take: (item) => {
      got.push(item.seq);
      onTake?.(item);
    },
  };
}

function settled(index: StreamIndex, readerId: string, onTake?: (item: SequencedEvent) => void): Recorder {
  const stream = recorder(readerId, onTake);
  index.add(stream, 0);
  index.settle(stream);
  return stream;
}

describe('StreamIndex', () => {
  it("hands a settled stream its account's events only: A's stream never takes B's", () => {
    const index = new StreamIndex();
    const a = settled(index, 'A');
    const a2 = settled(index, 'A');
    const b = settled(index, 'B');
    const batch = [
      event('lock.locked', 'A', 'dA'),
      event('lock.locked', 'B', 'dB'),
      event('api_key.created', 'B'),
      event('lock.unlocked', 'A', 'dA'),
    ];
    index.dispatch(batch);
    const [a1, b1, b2, a3] = batch.map((e) => e.seq);
    assert.deepEqual(a.got, [a1, a3]);
    assert.deepEqual(a2.got, [a1, a3]);
    assert.deepEqual(b.got, [b1, b2]);
  });

  it('hands a stream catching up every event, then only its own once settled', () => {
    const index = new StreamIndex();
    const a = recorder('A');
    index.add(a, 0);
    const first = [event('lock.locked', 'B', 'dB'), event('lock.locked', 'A', 'dA')];
    index.dispatch(first);
    assert.deepEqual(
      a.got,
      first.map((e) => e.seq),
    );
    index.settle(a);
    const second = [event('lock.locked', 'B', 'dB'), event('lock.unlocked', 'A', 'dA')];
    index.dispatch(second);
    assert.deepEqual(a.got, [...first.map((e) => e.seq), second[1]?.seq]);
  });

  it("hands a guest the shares made for it and its shared lock's lock events, each once", () => {
    const index = new StreamIndex();
    const owner = settled(index, 'O');
    // The guest's stream learns of the share from the batch and shares the lock, as EventStreams does.
    const guest = settled(index, 'G', (item) => {
      const { type, deviceId } = item.event;
      if ((type === 'share.created' || type === 'share.removed') && deviceId !== null)
        index.share(guest, deviceId, type === 'share.created');
    });
    const batch = [
      event('lock.locked', 'O', 'd1'),
      event('share.created', 'O', 'd1', { account_id: 'G' }),
      // In the same batch as the share: the guest takes it.
      event('lock.unlocked', 'O', 'd1'),
      event('share.created', 'O', 'd2', { account_id: 'X' }),
      event('lock.unlocked', 'O', 'd2'),
      event('share.removed', 'O', 'd1', { account_id: 'G' }),
      event('lock.locked', 'O', 'd1'),
    ];
    const [, shared, unlocked, , , removed] = batch.map((e) => e.seq);
    index.dispatch(batch);
    assert.deepEqual(guest.got, [shared, unlocked, removed]);
    assert.equal(owner.got.length, batch.length);
  });

  it("does not hand a guest the owner's other events of a shared lock", () => {
    const index = new StreamIndex();
    const guest = settled(index, 'G');
    index.share(guest, 'd1', true);
    const batch = [event('share.created', 'O', 'd1', { account_id: 'Y' }), event('lock.locked', 'O', 'd1')];
    index.dispatch(batch);
    assert.deepEqual(guest.got, [batch[1]?.seq]);
  });

  it('takes a stream removed during a batch out of the rest of it', () => {
    const index = new StreamIndex();
    const later = recorder('A');
    const first = settled(index, 'A', () => index.remove(later));
    index.add(later, 0);
    index.settle(later);
    const batch = [event('lock.locked', 'A', 'd'), event('lock.unlocked', 'A', 'd')];
    index.dispatch(batch);
    assert.deepEqual(
      first.got,
      batch.map((e) => e.seq),
    );
    assert.deepEqual(later.got, []);
    assert.equal(index.size, 1);
  });

  it('lets a stream remove itself during a batch', () => {
    const index = new StreamIndex();
    const other = settled(index, 'A');
    const self: Recorder = settled(index, 'A', () => index.remove(self));
    const batch = [event('lock.locked', 'A', 'd'), event('lock.unlocked', 'A', 'd')];
    index.dispatch(batch);
    assert.deepEqual(self.got, [batch[0]?.seq]);
    assert.deepEqual(
      other.got,
      batch.map((e) => e.seq),
    );
  });

  it('hands a stream added during a batch nothing of it, and the next batch whole', () => {
    const index = new StreamIndex();
    const added = recorder('A');
    const batch = [event('lock.locked', 'A', 'd'), event('lock.unlocked', 'A', 'd')];
    const adder = settled(index, 'A', (item) => {
      if (item.seq === batch[0]?.seq) {
        // Where the follower stands while it hands this batch out: past its last event.
        index.add(added, batch.at(-1)?.seq ?? 0);
        index.settle(added);
      }
    });
    index.dispatch(batch);
    assert.deepEqual(
      adder.got,
      batch.map((e) => e.seq),
    );
    assert.deepEqual(added.got, []);
    const next = [event('lock.locked', 'A', 'd')];
    index.dispatch(next);
    assert.deepEqual(added.got, [next[0]?.seq]);
  });

  it('hands a stream only the events past the position it joined at', () => {
    const index = new StreamIndex();
    const batch = [event('lock.locked', 'A', 'd'), event('lock.unlocked', 'A', 'd')];
    const late = recorder('A');
    index.add(late, batch[0]?.seq ?? 0);
    index.dispatch(batch);
    assert.deepEqual(late.got, [batch[1]?.seq]);
  });

  it("hands the batch to every stream when one throws, then throws the stream's error", () => {
    const index = new StreamIndex();
    settled(index, 'A', () => {
      throw new Error('broken sink');
    });
    const fine = settled(index, 'A');
    const batch = [event('lock.locked', 'A', 'd'), event('lock.unlocked', 'A', 'd')];
    assert.throws(() => index.dispatch(batch), /broken sink/);
    assert.deepEqual(
      fine.got,
      batch.map((e) => e.seq),
    );
  });

  it('forgets a removed stream entirely', () => {
    const index = new StreamIndex();
    const guest = settled(index, 'G');
    index.share(guest, 'd1', true);
    index.remove(guest);
    index.dispatch([event('lock.locked', 'G', 'd0'), event('lock.locked', 'O', 'd1')]);
    assert.deepEqual(guest.got, []);
    assert.equal(index.size, 0);
  });
});
