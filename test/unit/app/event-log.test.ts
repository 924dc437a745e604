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
  GUEST_EVENT_TYPES,
  isEventId,
  type LockEvent,
  type Origin,
  offlineEvent,
  redactFor,
  type StatusChange,
  type StatusSnapshot,
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
const status = (locked: boolean, over: Partial<StatusSnapshot> = {}): StatusSnapshot => ({
  locked,
  responsive: true,
  battery: 90,
  batteryState: 'ok',
  batteryLow: 20,
  batteryCritical: 10,
  jammed: false,
  door: null,
  offlineAnnounced: false,
  ...over,
});
const types = (before: StatusSnapshot, after: StatusSnapshot, more: Partial<StatusChange> = {}) =>
  statusEvents('acc', 'dev', { before, after, ...more }, undefined).map((e) => e.type);

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
    const [moved] = statusEvents(
      'acc',
      'dev',
      { before: status(true), after: status(false) },
      {
        taskId: 't1',
        command: 'unlock',
        origin: ORIGIN,
      },
    );
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
      const [moved] = statusEvents('acc', 'dev', { before: status(true), after: status(false) }, running);
      assert.deepEqual(moved && [moved.actor, moved.method, moved.taskId], [
        { kind: 'device' },
        'manual',
        null,
      ]);
    }
  });

  it('calls a relock by the device’s auto-lock `auto`, and says after how long', () => {
    const drafts = statusEvents(
      'acc',
      'dev',
      { before: status(false), after: status(true), cause: 'auto', autoLockSeconds: 30 },
      undefined,
    );
    assert.deepEqual(
      drafts.map((e) => [e.type, e.actor, e.method, e.taskId, e.data]),
      [
        ['lock.locked', { kind: 'device' }, 'auto', null, {}],
        ['lock.auto_locked', { kind: 'device' }, null, null, { after_seconds: 30 }],
      ],
    );
  });

  it('keeps a command’s movement the command’s, and an unlock by hand, whatever the cause says', () => {
    const running = { taskId: 't1', command: 'lock' as const, origin: ORIGIN };
    const asked = statusEvents(
      'acc',
      'dev',
      { before: status(false), after: status(true), cause: 'auto' },
      running,
    );
    assert.deepEqual(
      asked.map((e) => [e.type, e.method]),
      [['lock.locked', 'api_v3']],
    );
    assert.deepEqual(types(status(true), status(false), { cause: 'auto', autoLockSeconds: 30 }), [
      'lock.unlocked',
    ]);
    assert.equal(
      statusEvents('acc', 'dev', { before: status(true), after: status(false), cause: 'auto' }, undefined)[0]
        ?.method,
      'manual',
    );
  });

  it('warns of a lock locked with its door open, whoever locked it', () => {
    const running = { taskId: 't1', command: 'lock' as const, origin: ORIGIN };
    const [byCommand] = statusEvents(
      'acc',
      'dev',
      { before: status(false, { door: 'open' }), after: status(true, { door: 'open' }) },
      running,
    );
    assert.deepEqual(byCommand && [byCommand.type, byCommand.data], ['lock.locked', { door: 'open' }]);
    const [byHand] = statusEvents(
      'acc',
      'dev',
      { before: status(false, { door: 'open' }), after: status(true, { door: 'open' }) },
      undefined,
    );
    assert.deepEqual(byHand?.data, { door: 'open' });
    const [unlocked] = statusEvents(
      'acc',
      'dev',
      { before: status(true, { door: 'open' }), after: status(false, { door: 'open' }) },
      undefined,
    );
    assert.deepEqual(unlocked?.data, {}, 'an unlock with the door open is no warning');
    const [closed] = statusEvents(
      'acc',
      'dev',
      { before: status(false, { door: 'closed' }), after: status(true, { door: 'closed' }) },
      undefined,
    );
    assert.deepEqual(closed?.data, {});
  });

  it('records jams and their clearing', () => {
    assert.deepEqual(types(status(true), status(true, { jammed: true })), ['lock.jammed']);
    assert.deepEqual(types(status(true, { jammed: true }), status(true, { jammed: true })), []);
    assert.deepEqual(types(status(true, { jammed: true }), status(false)), [
      'lock.unjammed',
      'lock.unlocked',
    ]);
  });

  it('records the door opening and closing, not a sensor appearing closed or going away', () => {
    assert.deepEqual(types(status(true, { door: 'closed' }), status(true, { door: 'open' })), [
      'lock.door_opened',
    ]);
    assert.deepEqual(types(status(true, { door: 'open' }), status(true, { door: 'closed' })), [
      'lock.door_closed',
    ]);
    assert.deepEqual(types(status(true), status(true, { door: 'open' })), ['lock.door_opened']);
    assert.deepEqual(types(status(true), status(true, { door: 'closed' })), []);
    assert.deepEqual(types(status(true, { door: 'open' }), status(true)), []);
    assert.deepEqual(types(status(true, { door: 'open' }), status(true, { door: 'open' })), []);
  });

  it('says nothing when the lock is lost: lock.offline waits for the grace period', () => {
    assert.deepEqual(types(status(true), status(true, { responsive: false })), []);
  });

  it('says lock.online only for a lock whose lock.offline was said', () => {
    const lost = status(true, { responsive: false });
    assert.deepEqual(types(lost, status(true)), [], 'a short reconnect');
    assert.deepEqual(types({ ...lost, offlineAnnounced: true }, status(true)), ['lock.online']);
  });

  it('records the battery crossing the lock’s thresholds, with the threshold crossed', () => {
    const drafts = (before: StatusSnapshot, after: StatusSnapshot) =>
      statusEvents('acc', 'dev', { before, after }, undefined).map((e) => [e.type, e.data]);
    const own = { batteryLow: 40, batteryCritical: 15 };
    assert.deepEqual(drafts(status(true, own), status(true, { ...own, battery: 39, batteryState: 'low' })), [
      ['lock.battery_low', { battery: 39, threshold: 40 }],
    ]);
    assert.deepEqual(
      drafts(status(true, own), status(true, { ...own, battery: 5, batteryState: 'critical' })),
      [['lock.battery_critical', { battery: 5, threshold: 15 }]],
      'ok straight to critical: the critical event only',
    );
    assert.deepEqual(
      drafts(
        status(true, { ...own, battery: 5, batteryState: 'critical' }),
        status(true, { ...own, battery: 45, batteryState: 'ok' }),
      ),
      [['lock.battery_ok', { battery: 45, threshold: 40 }]],
    );
    assert.deepEqual(
      drafts(
        status(true, { ...own, battery: 5, batteryState: 'critical' }),
        status(true, { ...own, battery: 20, batteryState: 'low' }),
      ),
      [],
      'critical to low is the way up',
    );
    assert.deepEqual(
      drafts(status(true, own), status(true, { ...own, battery: 50 })),
      [],
      'a reading, no crossing',
    );
  });

  it('tells a report’s events in order: reach, jam, door, movement, battery', () => {
    const before = status(true, {
      responsive: false,
      offlineAnnounced: true,
      jammed: true,
      door: 'closed',
      battery: 30,
    });
    const after = status(false, { door: 'open', battery: 15, batteryState: 'low' });
    assert.deepEqual(types(before, after), [
      'lock.online',
      'lock.unjammed',
      'lock.door_opened',
      'lock.unlocked',
      'lock.battery_low',
    ]);
  });
});

describe('offlineEvent', () => {
  it('is the device’s lock.offline, in the owner’s log', () => {
    assert.deepEqual(offlineEvent('acc', 'dev'), {
      type: 'lock.offline',
      accountId: 'acc',
      deviceId: 'dev',
      actor: { kind: 'device' },
      method: null,
      taskId: null,
      data: {},
    });
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

describe('GUEST_EVENT_TYPES', () => {
  it('shows a guest the lock’s health as well as its movements, never the owner’s side', () => {
    for (const type of [
      'lock.jammed',
      'lock.unjammed',
      'lock.door_opened',
      'lock.door_closed',
      'lock.battery_low',
      'lock.battery_critical',
      'lock.battery_ok',
      'lock.offline',
      'lock.online',
      'lock.auto_locked',
    ] as const)
      assert.ok(GUEST_EVENT_TYPES.includes(type), type);
    assert.ok(GUEST_EVENT_TYPES.every((type) => type.startsWith('lock.') || type.startsWith('command.')));
  });
});
