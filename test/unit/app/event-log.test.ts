/**
 * The event log's pure rules: ids that sort by time and strictly rise within a process, how a
 * status change becomes events (who moved the lock), and what a guest sees of an owner's event.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventLog } from '../../../src/app/event-log.ts';
import type { Clock, EventStore, RandomSource } from '../../../src/app/ports.ts';
import {
  type EventDraft,
  eventIdFloor,
  isEventId,
  type LockEvent,
  type Origin,
  redactFor,
  statusEvents,
} from '../../../src/domain/event.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const noStore: EventStore = {
  append: async () => undefined,
  list: async () => [],
  since: async () => [],
  positionOf: async () => undefined,
  head: async () => 0,
  purgeBefore: async () => 0,
};
let n = 0;
const random: RandomSource = {
  // Falling random parts: only the time and the counter may order the ids.
  uuid: () => `${(0xffffffff - n++).toString(16)}-0000-4000-8000-000000000000`,
  secret: () => 'x',
};
const draft: EventDraft = {
  type: 'lock.locked',
  accountId: 'acc',
  deviceId: 'dev',
  actor: { kind: 'device' },
  method: 'manual',
  taskId: null,
  data: {},
};
const ORIGIN: Origin = {
  actor: { kind: 'api_key', accountId: 'acc', keyPrefix: 'lck_4tj2' },
  method: 'api_v3',
};
const status = (locked: boolean, battery = 90, responsive = true) => ({ locked, battery, responsive });

describe('EventLog.stamp', () => {
  it('makes ids that strictly rise, within one millisecond too, and sort by time', () => {
    const clock = new ManualClock(1_767_225_600_000);
    const log = new EventLog(noStore, clock, random);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(log.stamp(draft).id);
    clock.advance(1);
    ids.push(log.stamp(draft).id);
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every(isEventId), ids.join());
    assert.ok((ids[0] ?? '') >= eventIdFloor(1_767_225_600_000));
    assert.ok((ids[5] ?? '') >= eventIdFloor(1_767_225_600_001));
    assert.equal(log.stamp(draft).occurredAt, 1_767_225_600_001);
  });

  it('keeps rising when the clock reads earlier than before (a sandbox reset)', () => {
    let now = 5_000;
    const clock: Clock = { now: () => now, at: () => () => undefined, every: () => () => undefined };
    const log = new EventLog(noStore, clock, random);
    const first = log.stamp(draft).id;
    const earlier = new EventLog(noStore, new ManualClock(4_000), random);
    assert.ok(earlier.stamp(draft).id < first, 'another process with an earlier clock sorts earlier');
    now = 4_000;
    assert.ok(log.stamp(draft).id > first, 'this process never goes back');
  });
});

describe('statusEvents', () => {
  it('attributes a movement to the running command that asks for it', () => {
    const [moved] = statusEvents('acc', 'dev', { before: status(true), after: status(false) }, 10, {
      taskId: 't1',
      command: 'unlock',
      origin: ORIGIN,
    });
    assert.deepEqual(moved && [moved.type, moved.actor, moved.method, moved.taskId], [
      'lock.unlocked',
      ORIGIN.actor,
      'api_v3',
      't1',
    ]);
  });

  it('calls any other movement a hand turn: no command, a sync, or the opposite of the command', () => {
    for (const command of [undefined, 'sync', 'lock'] as const) {
      const running = command && { taskId: 't1', command, origin: ORIGIN };
      const [moved] = statusEvents('acc', 'dev', { before: status(true), after: status(false) }, 10, running);
      assert.deepEqual(moved && [moved.actor, moved.method, moved.taskId], [
        { kind: 'device' },
        'manual',
        null,
      ]);
    }
  });

  it('records reach and the battery crossing the threshold, either way, and nothing else', () => {
    const types = (before: ReturnType<typeof status>, after: ReturnType<typeof status>) =>
      statusEvents('acc', 'dev', { before, after }, 10, undefined).map((e) => e.type);
    assert.deepEqual(types(status(true, 50), status(true, 9, false)), ['lock.offline', 'lock.battery_low']);
    assert.deepEqual(types(status(true, 9, false), status(true, 10)), ['lock.online', 'lock.battery_ok']);
    assert.deepEqual(types(status(true, 50), status(true, 40)), [], 'a reading above the threshold');
    assert.deepEqual(types(status(true, 5), status(true, 4)), [], 'a reading below it');
  });
});

describe('redactFor', () => {
  const event: LockEvent = {
    ...draft,
    id: 'evt_0000000000010000000000000000',
    occurredAt: 1,
    accountId: 'owner',
    actor: { kind: 'api_key', accountId: 'owner', keyPrefix: 'lck_4tj2' },
    taskId: 't1',
  };

  it('shows the owner its event whole', () => {
    assert.deepEqual(redactFor(event, 'owner'), event);
  });

  it("shows a guest the actor's kind only, and no task", () => {
    assert.deepEqual(redactFor(event, 'guest'), { ...event, actor: { kind: 'api_key' }, taskId: null });
  });
});
