/**
 * When the webhook relay runs (src/app/webhooks/receivers.ts): a lock change stored here wakes it
 * at once only when the lock's account has a webhook or an enabled endpoint; every other change is
 * relayed by the poll, many in one batch. A receiver given on this process counts at once, one
 * given by another process (here: written to the store directly) from the next read of the list,
 * and its changes are relayed by the poll until then, never lost. Against a real SQLite store; the
 * relay's wake-ups are counted at its first store call (the log's head), which it makes in the
 * same tick as the wake-up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SqlStore } from '../../../src/adapters/stores/sql/store.ts';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import type { Cancel, Store } from '../../../src/app/ports.ts';
import { RECEIVERS_REFRESH_MS, WebhookReceivers } from '../../../src/app/webhooks/receivers.ts';
import { WebhookRelay } from '../../../src/app/webhooks/relay.ts';
import { aLock, aLockEvent, anAccount, anEndpoint } from '../../support/fixtures.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const RELAY_POLL_MS = 200;

/** A ManualClock whose polls fire as it is moved (ManualClock's never do). */
class PollingClock extends ManualClock {
  override every(intervalMs: number, fn: () => void): Cancel {
    let cancel: Cancel = () => {};
    const arm = (): void => {
      cancel = this.at(this.now() + intervalMs, () => {
        arm();
        fn();
      });
    };
    arm();
    return () => cancel();
  }
}

const logger = { info() {}, warn() {}, error() {} };
describe('the webhook relay wakes at once only for accounts with somewhere to send', () => {
  let dir: string;
  let store: SqlStore;
  let clock: PollingClock;
  let bus: LocalEventBus;
  let receivers: WebhookReceivers;
  let relay: WebhookRelay;
  let wakeUps: number;
  let dispatcherWakes: number;
  /** Each relay transaction: whether it was let skip without receivers, and how many events it read. */
  let relayed: { skip: boolean; read: number }[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-relay-'));
    store = await openSqliteStore(dir);
    for (const id of ['quiet', 'hooked', 'elsewhere']) {
      await store.accounts.insert(anAccount(id, { createdAt: 1_000 }));
      await store.locks.insert(aLock(`dev-${id}`, id));
    }
    await store.webhooks.set({
      accountId: 'hooked',
      url: 'https://hooks.example.com/{device_id}',
      method: 'POST',
      retries: false,
    });
    clock = new PollingClock(1_000_000);
    bus = new LocalEventBus((error) => {
      throw error;
    });
    wakeUps = 0;
    dispatcherWakes = 0;
    relayed = [];
    const events = store.events;
    const endpoints = store.webhookEndpoints;
    // Every relay pass starts with the log's head, synchronously from its wake-up.
    const counted: Store = Object.assign(Object.create(store) as Store, {
      events: Object.assign(Object.create(events) as typeof events, {
        head: () => {
          wakeUps++;
          return events.head();
        },
      }),
      webhookEndpoints: Object.assign(Object.create(endpoints) as typeof endpoints, {
        relay: async (...args: Parameters<typeof endpoints.relay>) => {
          const read = await endpoints.relay(...args);
          relayed.push({ skip: args[0].skipWithoutReceivers === true, read });
          return read;
        },
      }),
    });
    receivers = new WebhookReceivers({ store: store.webhookEndpoints, clock, logger });
    relay = new WebhookRelay({
      store: counted,
      clock,
      random: { uuid: () => crypto.randomUUID(), secret: () => 'x' },
      logger,
      events: bus,
      dispatcher: { wake: () => dispatcherWakes++ },
      receivers,
      queuePerAccount: 100,
    });
  });
  afterEach(async () => {
    await relay.stop();
    receivers.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The list read, the relay started and caught up with what the set-up logged. */
  async function startedWithList(): Promise<void> {
    receivers.start();
    await receivers.refresh();
    relay.start();
    await relay.relayNow();
  }

  /** A change stored by this process: its event in the log, then the bus's notice. */
  async function change(accountId: string): Promise<void> {
    await store.events.append([aLockEvent(accountId, `dev-${accountId}`)]);
    bus.lockStateChanged({
      deviceId: `dev-${accountId}`,
      ownerId: accountId,
      locked: false,
      at: clock.now(),
    });
  }

  const messages = async (accountId: string, endpointId?: string) =>
    (await store.deliveries.listForAccount(accountId, 50, endpointId)).length;

  it('wakes for every change until the list is first read', async () => {
    relay.start();
    await relay.relayNow();
    const before = wakeUps;
    await change('quiet');
    assert.equal(wakeUps, before + 1, 'nothing known yet: every change may have a receiver');
  });

  it('wakes for a change of an account with a webhook, not for one without', async () => {
    await startedWithList();
    let before = wakeUps;
    await change('quiet');
    assert.equal(wakeUps, before, 'no receiver: left to the poll');
    await change('hooked');
    assert.equal(wakeUps, before + 1, 'a webhook: relayed now');
    await relay.relayNow();
    assert.equal(await messages('hooked'), 1);
    assert.ok(dispatcherWakes > 0, 'and the dispatcher told');
    // The quiet change was read past in that pass too: the next poll finds nothing to relay.
    before = wakeUps;
    clock.advance(RELAY_POLL_MS);
    assert.equal(wakeUps, before + 1, 'the poll looks at the head');
    await relay.relayNow();
    assert.equal(await messages('quiet'), 0);
  });

  it('relays by the poll the change of an account given a receiver elsewhere, then at once after the next read', async () => {
    await startedWithList();
    // Another process gives the account an endpoint: this one has not read it yet.
    const head = await store.events.head();
    await store.webhookEndpoints.insert(anEndpoint('we_elsewhere', 'elsewhere', head), {
      current: 'sealed',
      previous: null,
      previousUntil: null,
    });
    let before = wakeUps;
    await change('elsewhere');
    assert.equal(wakeUps, before, 'not known here yet');
    clock.advance(RELAY_POLL_MS);
    assert.equal(wakeUps, before + 1, 'the poll relays it');
    await relay.relayNow();
    assert.equal(await messages('elsewhere', 'we_elsewhere'), 1, 'later, not lost');
    clock.advance(RECEIVERS_REFRESH_MS - RELAY_POLL_MS);
    await receivers.refresh();
    before = wakeUps;
    await change('elsewhere');
    assert.equal(wakeUps, before + 1, 'known from the next read: at once');
  });

  it('moves past the log without reading it while no account anywhere has a receiver', async () => {
    await store.webhooks.remove('hooked');
    await startedWithList();
    assert.equal(receivers.none(), true);
    relayed = [];
    await change('quiet');
    await change('quiet');
    clock.advance(RELAY_POLL_MS);
    await relay.relayNow();
    assert.deepEqual(relayed[0], { skip: true, read: 0 }, 'two changes, none read');
    // Another process gives an account an endpoint: this one still knows of no receiver.
    const head = await store.events.head();
    await store.webhookEndpoints.insert(anEndpoint('we_elsewhere', 'elsewhere', head), {
      current: 'sealed',
      previous: null,
      previousUntil: null,
    });
    relayed = [];
    await change('elsewhere');
    clock.advance(RELAY_POLL_MS);
    await relay.relayNow();
    assert.equal(receivers.none(), true, 'not read here yet');
    assert.deepEqual(
      relayed.filter((r) => r.read > 0),
      [{ skip: true, read: 1 }],
      'the store saw the endpoint and read the one change past the skipped ones',
    );
    assert.equal(await messages('elsewhere', 'we_elsewhere'), 1, 'not lost');
    assert.equal(await messages('quiet'), 0);
  });

  it('moves the position once a second, not at every poll, while it knows of no receiver', async () => {
    await store.webhooks.remove('hooked');
    await startedWithList();
    /** Lets the poll run and what it started end. */
    const poll = async (): Promise<void> => {
      clock.advance(RELAY_POLL_MS);
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // The catch-up pass of the start moved it: the polls of the next second do not.
    relayed = [];
    for (let i = 0; i < 4; i++) {
      await change('quiet');
      await poll();
    }
    assert.equal(relayed.length, 0, 'four polls within the second: no relay transaction');
    await poll();
    assert.deepEqual(relayed, [{ skip: true, read: 0 }], 'the first poll a second on: one');
    for (let i = 0; i < 4; i++) {
      await change('quiet');
      await poll();
    }
    assert.equal(relayed.length, 1, 'and none until the next second');
  });

  it('wakes at once for an account given a receiver on this process, before any read', async () => {
    await startedWithList();
    receivers.added('quiet');
    const before = wakeUps;
    await change('quiet');
    assert.equal(wakeUps, before + 1);
    // The next read trusts the store, where this account has no receiver (none was written here).
    await receivers.refresh();
    assert.equal(receivers.has('quiet'), false);
  });
});

describe('WebhookReceivers', () => {
  it('keeps an account added while a read runs, which the read may not have seen', async () => {
    let answer: (accounts: string[]) => void = () => {};
    const receivers = new WebhookReceivers({
      store: { receivingAccounts: () => new Promise((resolve) => (answer = resolve)) },
      clock: new ManualClock(),
      logger,
    });
    const read = receivers.refresh();
    receivers.added('late');
    answer(['hooked']);
    await read;
    assert.equal(receivers.has('hooked'), true);
    assert.equal(receivers.has('late'), true, 'added after the read began');
    assert.equal(receivers.has('other'), false);
  });

  it('knows of no receiver only once a read found none and none was added since', async () => {
    let accounts: string[] = [];
    const receivers = new WebhookReceivers({
      store: { receivingAccounts: async () => accounts },
      clock: new ManualClock(),
      logger,
    });
    assert.equal(receivers.none(), false, 'not read yet');
    await receivers.refresh();
    assert.equal(receivers.none(), true);
    receivers.added('new');
    assert.equal(receivers.none(), false, 'added here');
    accounts = ['new'];
    await receivers.refresh();
    assert.equal(receivers.none(), false);
  });

  it('keeps what it knew when the store cannot be read', async () => {
    let fail = false;
    const warnings: string[] = [];
    const receivers = new WebhookReceivers({
      store: {
        receivingAccounts: async () => {
          if (fail) throw new Error('database away');
          return ['hooked'];
        },
      },
      clock: new ManualClock(),
      logger: { ...logger, warn: (_: unknown, message: string) => void warnings.push(message) },
    });
    await receivers.refresh();
    fail = true;
    await receivers.refresh();
    assert.equal(receivers.has('hooked'), true);
    assert.equal(receivers.has('other'), false);
    assert.deepEqual(warnings, ['reading the accounts with webhooks failed']);
  });
});
