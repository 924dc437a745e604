/**
 * An account's queue is bounded, and nothing past it is lost silently (issue 17, point 4): the
 * dispatcher over a real SQLite store and the real HTTP transport, to a real receiver that holds
 * every request, with a queue of 5 and 2 places per account. The messages past the queue are in
 * the delivery log, failed, with the reason; the ones in the queue wait or are out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../../../src/app/ports.ts';
import { queueFull, type WebhookDispatcher } from '../../../src/app/webhooks/dispatcher.ts';
import type { WebhookConfig } from '../../../src/domain/webhook.ts';
import { anAccount } from '../../support/fixtures.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { loopbackDispatcher } from './dispatcher.ts';

describe("an account's queue of webhook messages", () => {
  let dir: string;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: WebhookDispatcher;
  let config: WebhookConfig;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-queue-'));
    store = await openSqliteStore(dir);
    await store.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
    receiver = await startReceiver({ hangMs: 60_000 });
    config = {
      accountId: 'acc-1',
      url: `${receiver.url}/q/{device_id}/{state}`,
      method: 'POST',
      retries: false,
    };
    await store.webhooks.set(config);
    dispatcher = loopbackDispatcher(store, { perAccount: 2, queuePerAccount: 5, timeoutMs: 60_000 });
    await dispatcher.start();
  });
  after(async () => {
    await dispatcher.stop();
    await receiver.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds 5; the 3 more are logged failed with the reason, and none is sent', async () => {
    const made = [];
    for (let i = 0; i < 8; i++) made.push(await dispatcher.sendTest(config, `lock-${i}`, i % 2 === 0));
    await receiver.waitFor(2);
    const log = await store.deliveries.listForAccount('acc-1', 100);
    assert.equal(log.length, 8, 'every message is in the log');
    const byId = new Map(log.map((d) => [d.id, d]));
    for (const [i, sent] of made.entries()) {
      const entry = byId.get(sent.id);
      assert.ok(entry, `message ${i} is logged`);
      if (i < 5) {
        assert.ok(['pending', 'sending'].includes(entry.status), `${i}: ${entry.status}`);
        assert.equal(entry.error, null);
      } else {
        assert.equal(entry.status, 'failed', `${i}`);
        assert.equal(entry.error, queueFull(5));
        assert.equal(entry.attempts, 0, 'never tried');
        assert.equal(entry.nextAttemptAt, null);
      }
    }
    assert.equal(queueFull(5), 'not sent: 5 messages of this account were already waiting');
    // Two places for the account: two out, held by the receiver; the other three wait their turn.
    assert.equal(log.filter((d) => d.status === 'sending').length, 2);
    assert.equal(receiver.open, 2);
    assert.deepEqual(receiver.requests.map((r) => r.url).sort(), ['/q/lock-0/locked', '/q/lock-1/unlocked']);
  });
});
