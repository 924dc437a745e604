/**
 * The webhook endpoints' store contract, for every SQL backend: endpoints kept per account, their
 * secrets sealed as given, and the relay: each event after the relay's position becomes at most one
 * message per endpoint (the plan's), the position moves past what was read, a run with nothing new
 * writes nothing, and two relays at once (separate connections on PostgreSQL) relay each event once.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RelayPlan, RelayTargets, Store } from '../../src/app/ports.ts';
import { relayPlan } from '../../src/app/webhooks/relay.ts';
import { openKey, queueFull } from '../../src/domain/delivery.ts';
import { aLock, aLockEvent, anAccount, anEndpoint } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

let n = 0;
const plan: RelayPlan = (batch, targets) => relayPlan(batch, targets, 1_000, 30_000, () => `msg_${++n}`);
const limits = (batch: number) => ({ batch, open: 1_000 });
/** The account's API Settings webhook. */
const webhookFor = (store: Store, accountId: string) =>
  store.webhooks.set({ accountId, url: 'https://hooks.example.com/x', method: 'POST', retries: false });

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
      await store.webhookEndpoints.insert(anEndpoint('we_1', 'owner', head), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_2', 'other', head), secrets);
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

    it('forgets a message that was out when its endpoint went, once its attempt is recorded', async () => {
      await store.webhookEndpoints.insert(anEndpoint('we_1', 'owner', await store.events.head()), secrets);
      await store.events.append([aLockEvent('owner', 'dev-a'), aLockEvent('owner', 'dev-a')]);
      while ((await store.webhookEndpoints.relay(limits(10), plan)) > 0);
      const [second, first] = await store.deliveries.listForAccount('owner', 50, 'we_1');
      assert.ok(first && second);
      assert.equal((await store.deliveries.claim(first.id, 30_000))?.status, 'sending');
      assert.equal(await store.webhookEndpoints.remove('owner', 'we_1'), true);
      assert.deepEqual(
        (await store.deliveries.listForAccount('owner', 50, 'we_1')).map((d) => d.id),
        [first.id],
        'the message being sent is left to finish; the waiting one went',
      );
      const outcome = { attempts: 1, nextAttemptAt: null, lastAttemptAt: 30_010, responseStatus: 200 };
      await store.deliveries.record(first.id, {
        ...outcome,
        status: 'delivered',
        error: null,
        latencyMs: 10,
      });
      assert.deepEqual(await store.deliveries.listForAccount('owner', 50, 'we_1'), [], 'then it went too');
      assert.equal(await store.deliveries.get('owner', first.id, 'we_1'), undefined);
    });

    it('relays each event once per endpoint of its account, and moves past what it read', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(anEndpoint('we_a', 'owner', head), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_b', 'owner', head), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_o', 'other', head), secrets);
      const events = [
        aLockEvent('owner', 'dev-a'),
        aLockEvent('other', 'dev-o'),
        aLockEvent('owner', 'dev-a'),
      ];
      await store.events.append(events);
      // Everything up to the head (also what was logged before the endpoints) is read once.
      let read = 0;
      for (
        let r = await store.webhookEndpoints.relay(limits(2), plan);
        r > 0;
        r = await store.webhookEndpoints.relay(limits(2), plan)
      )
        read += r;
      assert.ok(read >= events.length);
      assert.equal(await store.webhookEndpoints.relay(limits(10), plan), 0, 'nothing new');
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

    it("writes the API Settings webhook's message for each lock change, within its backlog bound", async () => {
      await store.webhooks.set({
        accountId: 'owner',
        url: 'https://hooks.example.com/{device_id}/{state}',
        method: 'GET',
        retries: false,
      });
      // Drain what earlier writes logged, so only these events are relayed below.
      while ((await store.webhookEndpoints.relay(limits(50), plan)) > 0);
      await store.events.append([
        aLockEvent('owner', 'dev-a', 'lock.unlocked'),
        aLockEvent('owner', 'dev-a', 'command.succeeded'),
        aLockEvent('owner', 'dev-a', 'lock.locked'),
        aLockEvent('other', 'dev-o', 'lock.unlocked'),
      ]);
      const seen: RelayTargets[] = [];
      const bounded: RelayPlan = (batch, targets) => {
        seen.push(targets);
        return relayPlan(batch, targets, 1, 30_000, () => `msg_${++n}`);
      };
      assert.equal(await store.webhookEndpoints.relay({ batch: 10, open: 1 }, bounded), 4);
      assert.equal(seen[0]?.webhooks.get('owner')?.method, 'GET');
      assert.equal(seen[0]?.webhooks.has('other'), false, 'no webhook, no message');
      assert.equal(seen[0]?.open.get(openKey('owner', null)), 0);
      const log = await store.deliveries.listForAccount('owner', 50);
      assert.deepEqual(
        log.map((d) => [d.url, d.event, d.status, d.error, d.eventId]).reverse(),
        [
          ['https://hooks.example.com/dev-a/unlocked', 'lock.state_changed', 'pending', null, null],
          ['https://hooks.example.com/dev-a/locked', 'lock.state_changed', 'failed', queueFull(1), null],
        ],
        'a change per message; past the bound of 1 waiting, logged failed and never sent',
      );
      assert.deepEqual(await store.deliveries.listForAccount('other', 50), []);
      // The next batch sees the backlog the store counted: the one message still waiting.
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.unlocked')]);
      assert.equal(await store.webhookEndpoints.relay({ batch: 10, open: 1 }, bounded), 1);
      assert.equal(seen[1]?.open.get(openKey('owner', null)), 1);
    });

    it('gives the webhook only the changes logged after it was set up; a change of it keeps that', async () => {
      const hook = (url: string) => ({ accountId: 'owner', url, method: 'POST' as const, retries: false });
      const urls = async () =>
        (await store.deliveries.listForAccount('owner', 50)).map((d) => d.url).reverse();
      // Logged before the webhook exists and relayed only after: the relay runs behind the log.
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.unlocked')]);
      await store.webhooks.set(hook('https://one.example.com/{state}'));
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.locked')]);
      // A new URL is the same webhook: nothing between the two is lost.
      await store.webhooks.set(hook('https://two.example.com/{state}'));
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.unlocked')]);
      while ((await store.webhookEndpoints.relay(limits(50), plan)) > 0);
      assert.deepEqual(await urls(), ['https://two.example.com/locked', 'https://two.example.com/unlocked']);
      // Removed, a change, and set again: the webhook starts anew, without the change in between.
      await store.webhooks.remove('owner');
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.locked')]);
      await store.webhooks.set(hook('https://three.example.com/{state}'));
      await store.events.append([aLockEvent('owner', 'dev-a', 'lock.unlocked')]);
      while ((await store.webhookEndpoints.relay(limits(50), plan)) > 0);
      assert.deepEqual((await urls()).slice(2), ['https://three.example.com/unlocked']);
    });

    it('makes no message for a deleted account, neither its webhook nor its endpoints', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(anEndpoint('we_gone', 'other', head), secrets);
      await webhookFor(store, 'other');
      await store.accounts.update('other', { deletedAt: 5_000 });
      await store.events.append([aLockEvent('other', 'dev-o', 'lock.locked')]);
      while ((await store.webhookEndpoints.relay(limits(50), plan)) > 0);
      assert.deepEqual(await store.deliveries.listForAccount('other', 50), []);
      assert.deepEqual(await store.deliveries.listForAccount('other', 50, 'we_gone'), []);
    });

    it('lists the accounts with a webhook or an enabled endpoint, not deleted', async () => {
      assert.deepEqual(await store.webhookEndpoints.receivingAccounts(), []);
      for (const id of ['hooked', 'disabled', 'gone'])
        await store.accounts.insert(anAccount(id, { createdAt: 1_000 }));
      const head = await store.events.head();
      await store.webhookEndpoints.insert(anEndpoint('we_o', 'owner', head), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_o2', 'owner', head), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_d', 'disabled', head, { enabled: false }), secrets);
      await store.webhookEndpoints.insert(anEndpoint('we_g', 'gone', head), secrets);
      const webhook = { url: 'https://hooks.example.com/x', method: 'POST', retries: false } as const;
      await store.webhooks.set({ accountId: 'hooked', ...webhook });
      await store.webhooks.set({ accountId: 'owner', ...webhook });
      await store.accounts.update('gone', { deletedAt: 5_000 });
      assert.deepEqual((await store.webhookEndpoints.receivingAccounts()).sort(), ['hooked', 'owner']);
      await store.webhooks.remove('hooked');
      assert.deepEqual(await store.webhookEndpoints.receivingAccounts(), ['owner']);
    });

    it('moves past the log without reading it only while no account has a receiver', async () => {
      const skipping = { ...limits(10), skipWithoutReceivers: true };
      let planned = 0;
      const counting: RelayPlan = (batch, targets) => {
        planned += batch.length;
        return plan(batch, targets);
      };
      while ((await store.webhookEndpoints.relay(limits(50), plan)) > 0);
      await store.events.append([aLockEvent('owner', 'dev-a'), aLockEvent('other', 'dev-o')]);
      assert.equal(await store.webhookEndpoints.relay(skipping, counting), 0);
      assert.equal(planned, 0, 'no receiver: nothing read');
      assert.equal(
        await store.webhookEndpoints.relay(limits(10), counting),
        0,
        'and the position is at the head',
      );
      // A disabled endpoint and a deleted account's webhook are no receivers; an enabled endpoint is.
      const head = await store.events.head();
      await store.webhookEndpoints.insert(anEndpoint('we_off', 'owner', head, { enabled: false }), secrets);
      await store.accounts.insert(anAccount('gone', { createdAt: 1_000 }));
      await webhookFor(store, 'gone');
      await store.accounts.update('gone', { deletedAt: 5_000 });
      await store.events.append([aLockEvent('owner', 'dev-a')]);
      assert.equal(await store.webhookEndpoints.relay(skipping, counting), 0);
      assert.equal(planned, 0);
      await webhookFor(store, 'other');
      const changes = [aLockEvent('other', 'dev-o'), aLockEvent('owner', 'dev-a')];
      await store.events.append(changes);
      assert.equal(await store.webhookEndpoints.relay(skipping, counting), 2, 'a webhook: read');
      assert.equal(planned, 2);
      assert.equal((await store.deliveries.listForAccount('other', 50)).length, 1);
    });

    it('relays each event once when two relays run at once', async () => {
      const head = await store.events.head();
      await store.webhookEndpoints.insert(anEndpoint('we_a', 'owner', head), secrets);
      const events = Array.from({ length: 20 }, () => aLockEvent('owner', 'dev-a'));
      await store.events.append(events);
      await Promise.all([
        (async () => {
          while ((await store.webhookEndpoints.relay(limits(3), plan)) > 0);
        })(),
        (async () => {
          while ((await store.webhookEndpoints.relay(limits(3), plan)) > 0);
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
