/**
 * The webhook endpoints' store contract, for every SQL backend: endpoints kept per account, their
 * secrets sealed as given, and the relay: each event after the relay's position becomes at most one
 * message per endpoint (the plan's), the position moves past what was read, a run with nothing new
 * writes nothing, and two relays at once (separate connections on PostgreSQL) relay each event once.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RelayPlan, Store } from '../../src/app/ports.ts';
import { relayedMessage } from '../../src/app/webhooks/relay.ts';
import { formatEventId, type LockEvent } from '../../src/domain/event.ts';
import { endpointTakes, type WebhookEndpoint } from '../../src/domain/webhook-endpoint.ts';
import { aLock, anAccount } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

let counter = 0;
function lockEvent(accountId: string, deviceId: string): LockEvent {
  counter++;
  return {
    id: formatEventId(20_000, counter, counter.toString(16).padStart(10, '0')),
    occurredAt: 20_000,
    type: 'lock.unlocked',
    accountId,
    deviceId,
    actor: { kind: 'device' },
    method: 'manual',
    taskId: null,
    data: {},
  };
}

const endpoint = (id: string, accountId: string, fromSeq: number): WebhookEndpoint => ({
  id,
  accountId,
  url: `https://hooks.example.com/${id}`,
  types: [],
  deviceIds: [],
  retries: true,
  enabled: true,
  disabledAt: null,
  disabledReason: null,
  failingSince: null,
  fromSeq,
  createdAt: 1_000,
});

let n = 0;
const plan: RelayPlan = (batch, endpoints) =>
  batch.flatMap(({ seq, event }) =>
    endpoints
      .filter((e) => endpointTakes(e, seq, event))
      .map((e) => relayedMessage(e, event, `msg_${++n}`, 30_000)),
  );

export function endpointStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Webhook endpoint store contract: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      for (const id of ['owner', 'other']) await store.accounts.insert(anAccount(id, { createdAt: 1_000 }));
      await store.locks.insert(aLock('dev-a', 'owner'));
      await store.locks.insert(aLock('dev-o', 'other'));
    });
    afterEach(() => factory.cleanup(store));

    const secrets = { current: 'sealed-1', previous: null, previousUntil: null };

    it('keeps endpoints per account, with their sealed secrets, and removes them with their log', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(endpoint('we_1', 'owner', head), secrets);
      await store.webhookEndpoints.insert(endpoint('we_2', 'other', head), secrets);
      assert.deepEqual(
        (await store.webhookEndpoints.list('owner')).map((e) => e.id),
        ['we_1'],
      );
      assert.equal(await store.webhookEndpoints.get('other', 'we_1'), undefined);
      assert.equal(await store.webhookEndpoints.count('owner'), 1);
      assert.deepEqual(await store.webhookEndpoints.getSecrets('we_1'), secrets);
      assert.equal(await store.webhookEndpoints.markFailing('we_1', 5_000), 5_000);
      assert.equal(await store.webhookEndpoints.markFailing('we_1', 9_000), 5_000, 'since the first failure');
      assert.equal(await store.webhookEndpoints.disable('we_1', 9_000, 'r', 'e'), true);
      assert.equal(await store.webhookEndpoints.disable('we_1', 9_000, 'r', 'e'), false, 'once');
      assert.equal(await store.webhookEndpoints.remove('other', 'we_1'), false);
      assert.equal(await store.webhookEndpoints.remove('owner', 'we_1'), true);
      assert.equal(await store.webhookEndpoints.get('owner', 'we_1'), undefined);
    });

    it('relays each event once per endpoint of its account, and moves past what it read', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(endpoint('we_a', 'owner', head), secrets);
      await store.webhookEndpoints.insert(endpoint('we_b', 'owner', head), secrets);
      await store.webhookEndpoints.insert(endpoint('we_o', 'other', head), secrets);
      const events = [lockEvent('owner', 'dev-a'), lockEvent('other', 'dev-o'), lockEvent('owner', 'dev-a')];
      await store.events.append(events);
      // Everything up to the head (also what was logged before the endpoints) is read once.
      let read = 0;
      for (
        let r = await store.webhookEndpoints.relay(2, plan);
        r > 0;
        r = await store.webhookEndpoints.relay(2, plan)
      )
        read += r;
      assert.ok(read >= events.length);
      assert.equal(await store.webhookEndpoints.relay(10, plan), 0, 'nothing new');
      const logA = await store.deliveries.listForAccount('owner', 50, 'we_a');
      const logO = await store.deliveries.listForAccount('other', 50, 'we_o');
      assert.deepEqual(logA.map((d) => d.eventId).reverse(), [events[0]?.id, events[2]?.id]);
      assert.deepEqual(
        logO.map((d) => d.eventId),
        [events[1]?.id],
      );
      assert.equal((await store.deliveries.listForAccount('owner', 50, 'we_b')).length, 2);
      assert.deepEqual(
        await store.deliveries.listForAccount('owner', 50),
        [],
        "the webhook's log is its own",
      );
      // One lock's messages to one endpoint in the log's order.
      assert.ok((logA[1]?.seq ?? 0) < (logA[0]?.seq ?? 0));
    });

    it('relays each event once when two relays run at once', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(endpoint('we_a', 'owner', head), secrets);
      const events = Array.from({ length: 20 }, () => lockEvent('owner', 'dev-a'));
      await store.events.append(events);
      await Promise.all([
        (async () => {
          while ((await store.webhookEndpoints.relay(3, plan)) > 0);
        })(),
        (async () => {
          while ((await store.webhookEndpoints.relay(3, plan)) > 0);
        })(),
      ]);
      const log = await store.deliveries.listForAccount('owner', 50, 'we_a');
      assert.deepEqual(
        log.map((d) => d.eventId).reverse(),
        events.map((e) => e.id),
      );
    });
  });
}
