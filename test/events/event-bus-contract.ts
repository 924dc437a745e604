/**
 * The contract every EventBus implementation must meet (src/app/event-ports.ts), as its callers rely
 * on it: a v1 control waits for its task's end (commands.ts), the webhook dispatcher writes one
 * message per state change it stored (dispatcher.ts). Each implementation's test file calls
 * eventBusContract() with a way to open buses; the same assertions then run against the process's
 * own bus and the Redis one.
 *
 * Where the implementation is shared by several processes (Redis), `peer` opens a second bus on the
 * same channel, as the next server process of the deployment has; the assertions that name a peer
 * then run across "processes" too. Nothing here waits a fixed time: a bus that must hear nothing is
 * checked once a later marker has arrived (settled()), which the ordering this contract asserts
 * makes a proof.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { EventBus, EventScope, LockStateChanged } from '../../src/app/ports.ts';
import type { Task } from '../../src/domain/task.ts';
import { eventually } from '../support/eventually.ts';

export type ClosableEventBus = EventBus & { close(): Promise<void> };

export interface EventBusFactory {
  /** A bus on a channel of its own: another deployment's (for Redis: a prefix of its own). */
  open(): Promise<ClosableEventBus>;
  /** Another bus on `bus`'s channel (another server process); absent for one process's own bus. */
  readonly peer?: (bus: ClosableEventBus) => Promise<ClosableEventBus>;
  /** After each test, once every bus is closed: drop and check whatever open() made. */
  cleanup(): Promise<void>;
}

const LOCK = '00000000-0000-4000-8000-0000000000b1';
const OTHER_LOCK = '00000000-0000-4000-8000-0000000000b2';

const change = (deviceId: string, locked: boolean, at: number): LockStateChanged => ({
  deviceId,
  ownerId: 'acc-1',
  locked,
  at,
});

const ended = (id: string, deviceId = LOCK, error?: 'JAMMED'): Task => ({
  id,
  accountId: 'acc-1',
  deviceId,
  command: 'unlock',
  status: 'terminated',
  outcome: error === undefined ? { successful: true } : { successful: false, error },
  createdAt: 1_767_225_600_000,
  deadline: 1_767_225_615_000,
  endedAt: 1_767_225_600_250,
});

const FENCE = 'fence-';
let fences = 0;

type Heard = readonly ['lock', LockStateChanged] | readonly ['task', Task];

interface Recorder {
  /** What the listeners heard, both kinds in one list, in the order heard (markers left out). */
  readonly heard: Heard[];
  cancel(): void;
}

/** Listens to both kinds on `bus` in `scope` (default: the bus's default). */
function record(bus: EventBus, scope?: EventScope): Recorder {
  const heard: Heard[] = [];
  const stopLock = bus.onLockStateChanged((event) => heard.push(['lock', event]), scope);
  const stopTask = bus.onTaskEnded((task) => {
    if (!task.id.startsWith(FENCE)) heard.push(['task', task]);
  }, scope);
  return {
    heard,
    cancel() {
      stopLock();
      stopTask();
    },
  };
}

export function eventBusContract(name: string, factory: EventBusFactory): void {
  describe(`EventBus contract: ${name}`, () => {
    /** Every bus a test opened, with the markers each has heard. */
    const opened = new Map<ClosableEventBus, Set<string>>();

    const track = (bus: ClosableEventBus): ClosableEventBus => {
      const markers = new Set<string>();
      bus.onTaskEnded((task) => {
        if (task.id.startsWith(FENCE)) markers.add(task.id);
      });
      opened.set(bus, markers);
      return bus;
    };
    const open = async (): Promise<ClosableEventBus> => track(await factory.open());
    /** Another process's bus on `bus`'s channel, or undefined for an implementation without any. */
    const peerOf = async (bus: ClosableEventBus): Promise<ClosableEventBus | undefined> =>
      factory.peer && track(await factory.peer(bus));

    /** Resolves once `to` has heard everything `from` announced so far: a marker sent after it. */
    const caughtUp = async (from: ClosableEventBus, to: ClosableEventBus): Promise<void> => {
      fences += 1;
      const id = `${FENCE}${fences}`;
      from.taskEnded(ended(id));
      await eventually(`marker ${id}`, () => opened.get(to)?.has(id) === true, { everyMs: 2 });
    };
    /**
     * Resolves once whatever any of `buses` announced has reached every one of them, echoes
     * included: a marker from each to each, twice round, each sent after the one before arrived.
     */
    const settled = async (...buses: (ClosableEventBus | undefined)[]): Promise<void> => {
      const live = buses.filter((bus): bus is ClosableEventBus => bus !== undefined);
      for (let round = 0; round < 2; round += 1)
        for (const from of live) for (const to of live) if (from !== to) await caughtUp(from, to);
    };

    afterEach(async () => {
      for (const bus of opened.keys()) await bus.close();
      opened.clear();
      await factory.cleanup();
    });

    it('delivers each kind of event to every listener, once, as announced', async () => {
      const bus = await open();
      const peer = await peerOf(bus);
      // Two listeners a bus, as a v1 wait and the command timers listen side by side.
      const here = [record(bus), record(bus)];
      const there = peer === undefined ? [] : [record(peer), record(peer)];
      const state = change(LOCK, false, 1_767_225_600_250);
      const task = ended('task-1', LOCK, 'JAMMED');
      // Announced at once after the peer opened: a bus that is open hears what comes next.
      bus.lockStateChanged(state);
      bus.taskEnded(task);
      await settled(bus, peer);
      for (const listener of [...here, ...there])
        assert.deepEqual(listener.heard, [
          ['lock', state],
          ['task', task],
        ]);
      if (peer === undefined) return;
      // And the other way: the first process hears the second's, which hears its own once.
      const back = ended('task-2');
      peer.taskEnded(back);
      await settled(bus, peer);
      for (const listener of [...here, ...there]) assert.deepEqual(listener.heard.at(-1), ['task', back]);
      for (const listener of [...here, ...there]) assert.equal(listener.heard.length, 3, 'no echo');
    });

    it("keeps a 'here' listener to what its own process announces", async () => {
      const bus = await open();
      const peer = await peerOf(bus);
      const here = record(bus, 'here');
      const everywhere = record(bus, 'everywhere');
      bus.lockStateChanged(change(LOCK, true, 1));
      assert.deepEqual(here.heard, [['lock', change(LOCK, true, 1)]], 'at once, in the announcing call');
      assert.deepEqual(everywhere.heard, [['lock', change(LOCK, true, 1)]]);
      if (peer === undefined) return;
      await settled(bus, peer);
      const peerHere = record(peer, 'here');
      const peerEverywhere = record(peer);
      // One after the other: two processes' announcements have no order between them.
      peer.lockStateChanged(change(LOCK, false, 2));
      await settled(bus, peer);
      bus.taskEnded(ended('task-1'));
      await settled(bus, peer);
      assert.deepEqual(here.heard, [
        ['lock', change(LOCK, true, 1)],
        ['task', ended('task-1')],
      ]);
      assert.deepEqual(everywhere.heard, [
        ['lock', change(LOCK, true, 1)],
        ['lock', change(LOCK, false, 2)],
        ['task', ended('task-1')],
      ]);
      assert.deepEqual(peerHere.heard, [['lock', change(LOCK, false, 2)]]);
      assert.deepEqual(
        peerEverywhere.heard.map(([kind]) => kind),
        ['lock', 'task'],
      );
    });

    it('stops a cancelled listener only, whenever it is cancelled, and cancelling twice is harmless', async () => {
      const bus = await open();
      const peer = await peerOf(bus);
      const buses = peer === undefined ? [bus] : [bus, peer];
      const kept = buses.map((b) => record(b));
      const cancelled = [...buses.map((b) => record(b)), record(bus, 'here')];
      // A v1 wait stops listening from inside its listener, on the task it waited for.
      const selfCancelling = buses.map((b) => {
        const heard: Task[] = [];
        const stop = b.onTaskEnded((task) => {
          if (task.id.startsWith(FENCE)) return;
          heard.push(task);
          stop();
        });
        return heard;
      });
      bus.taskEnded(ended('task-1'));
      await settled(bus, peer);
      for (const listener of cancelled) listener.cancel();
      for (const listener of cancelled) listener.cancel();
      bus.taskEnded(ended('task-2'));
      await settled(bus, peer);
      peer?.lockStateChanged(change(LOCK, true, 3));
      await settled(bus, peer);
      for (const listener of cancelled) assert.deepEqual(listener.heard, [['task', ended('task-1')]]);
      for (const heard of selfCancelling) assert.deepEqual(heard, [ended('task-1')]);
      for (const listener of kept)
        assert.deepEqual(
          listener.heard.map(([kind, event]) => (kind === 'task' ? event.id : event.at)),
          peer === undefined ? ['task-1', 'task-2'] : ['task-1', 'task-2', 3],
        );
    });

    it("delivers each lock's events in the order one process announced them", async () => {
      const bus = await open();
      const peer = await peerOf(bus);
      const listeners = [record(bus), ...(peer === undefined ? [] : [record(peer)])];
      const announced: Heard[] = [];
      for (let i = 0; i < 60; i += 1) {
        const deviceId = i % 3 === 0 ? OTHER_LOCK : LOCK;
        if (i % 2 === 0) {
          const event = change(deviceId, i % 4 === 0, 1_000 + i);
          bus.lockStateChanged(event);
          announced.push(['lock', event]);
        } else {
          const task = ended(`task-${i}`, deviceId);
          bus.taskEnded(task);
          announced.push(['task', task]);
        }
      }
      await settled(bus, peer);
      const of = (heard: readonly Heard[], deviceId: string) =>
        heard.filter(([, event]) => event.deviceId === deviceId);
      for (const listener of listeners)
        for (const deviceId of [LOCK, OTHER_LOCK])
          assert.deepEqual(of(listener.heard, deviceId), of(announced, deviceId));
    });

    it('lets a failing listener neither stop the others nor fail the announcer', async () => {
      const bus = await open();
      const peer = await peerOf(bus);
      const failing = (): void => {
        throw new Error('a listener failed');
      };
      for (const b of peer === undefined ? [bus] : [bus, peer]) {
        b.onLockStateChanged(failing);
        b.onTaskEnded((task) => {
          if (!task.id.startsWith(FENCE)) failing();
        });
      }
      const after = [record(bus), ...(peer === undefined ? [] : [record(peer)])];
      assert.doesNotThrow(() => bus.lockStateChanged(change(LOCK, false, 5)));
      assert.doesNotThrow(() => bus.taskEnded(ended('task-1')));
      await settled(bus, peer);
      for (const listener of after)
        assert.deepEqual(listener.heard, [
          ['lock', change(LOCK, false, 5)],
          ['task', ended('task-1')],
        ]);
    });

    it('keeps deployments apart: a bus opened on its own hears nothing of another', async () => {
      const one = await open();
      const two = await open();
      const onePeer = await peerOf(one);
      const twoPeer = await peerOf(two);
      const heardOne = [record(one), ...(onePeer === undefined ? [] : [record(onePeer)])];
      const heardTwo = [record(two), ...(twoPeer === undefined ? [] : [record(twoPeer)])];
      one.lockStateChanged(change(LOCK, false, 1));
      onePeer?.taskEnded(ended('task-one'));
      two.taskEnded(ended('task-two'));
      // Both channels settled after the announcements: anything that crossed has arrived by now.
      await settled(one, onePeer);
      await settled(two, twoPeer);
      await settled(one, onePeer);
      for (const listener of heardOne)
        assert.deepEqual(
          listener.heard.map(([kind]) => kind).sort(),
          onePeer === undefined ? ['lock'] : ['lock', 'task'],
        );
      for (const listener of heardTwo) assert.deepEqual(listener.heard, [['task', ended('task-two')]]);
    });

    it('closes: hears nothing more, shares nothing more, tolerates announcing and a second close, leaves no handle', async () => {
      const before = process.getActiveResourcesInfo().sort();
      const bus = await open();
      const peer = await peerOf(bus);
      const third = peer === undefined ? undefined : await peerOf(bus);
      const heard = record(bus);
      const peerHeard = peer === undefined ? undefined : record(peer);
      await bus.close();
      await bus.close();
      assert.doesNotThrow(() => bus.lockStateChanged(change(LOCK, true, 1)));
      assert.doesNotThrow(() => bus.taskEnded(ended('after-close')));
      assert.deepEqual(heard.heard, [], 'a closed bus delivers nothing, even its own announcements');
      if (peer !== undefined && third !== undefined && peerHeard !== undefined) {
        // The others go on among themselves, and hear nothing the closed one announced.
        third.taskEnded(ended('task-3'));
        await settled(peer, third);
        assert.deepEqual(peerHeard.heard, [['task', ended('task-3')]]);
        assert.deepEqual(heard.heard, []);
        await peer.close();
        await third.close();
      }
      // Everything a bus opened (connections, timers) is gone once close() has resolved.
      assert.deepEqual(process.getActiveResourcesInfo().sort(), before);
    });
  });
}
