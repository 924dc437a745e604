/**
 * What a dispatch pass asks the store (issue 25, point 4): one read of the due messages, when that
 * read comes back short of its limit and so holds every message that may start. A pass used to end
 * with an empty read per level of busyness, and one ran after every new message and every delivery
 * that ended: at 500 changes a second, five reads a change, the outbox's largest cost. The
 * dispatcher runs over a real SQLite store and the real HTTP transport, to a receiver that holds
 * every request, so no delivery ends and starts a pass of its own while the reads are counted.
 * Which message starts first when a read comes back full is tenant-fairness.test.ts's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import type { DueSkip, Store } from '../../../src/app/ports.ts';
import type { WebhookDispatcher } from '../../../src/app/webhooks/dispatcher.ts';
import type { WebhookConfig } from '../../../src/domain/webhook.ts';
import { anAccount } from '../../support/fixtures.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { loopbackDispatcher } from './dispatcher.ts';

describe('a dispatch pass', () => {
  let dir: string;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: WebhookDispatcher;
  const configs: WebhookConfig[] = [];
  const reads: { limit: number; skip: DueSkip; found: number }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-dispatch-'));
    store = await openSqliteStore(dir);
    receiver = await startReceiver({ hangMs: 60_000 });
    for (const id of ['acc-1', 'acc-2']) {
      await store.accounts.insert(anAccount(id, { email: `${id}@example.com` }));
      const config: WebhookConfig = {
        accountId: id,
        url: `${receiver.url}/${id}/{device_id}/{state}`,
        method: 'POST',
        retries: false,
      };
      await store.webhooks.set(config);
      configs.push(config);
    }
    const due = store.deliveries.due.bind(store.deliveries);
    store.deliveries.due = async (now, limit, skip) => {
      const found = await due(now, limit, skip);
      reads.push({ limit, skip, found: found.length });
      return found;
    };
    dispatcher = loopbackDispatcher(store, { timeoutMs: 60_000 });
    await dispatcher.start();
  });
  after(async () => {
    await dispatcher.stop();
    await receiver.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the due messages once, and starts them least busy account first', async () => {
    // Two accounts with messages out already: levels 0, 1 and 2 of busyness, where a pass used to
    // read three times to find that nothing more was due.
    await dispatcher.sendTest(configs[0] as WebhookConfig, 'lock-a1', true);
    await dispatcher.sendTest(configs[0] as WebhookConfig, 'lock-a2', true);
    await dispatcher.sendTest(configs[1] as WebhookConfig, 'lock-b1', true);
    await dispatcher.dispatchDue();
    await receiver.waitFor(3);
    reads.length = 0;

    await dispatcher.dispatchDue();
    assert.equal(reads.length, 1, 'nothing is due: one read finds it out');
    assert.equal(reads[0]?.found, 0);

    reads.length = 0;
    const sent = await dispatcher.sendTest(configs[1] as WebhookConfig, 'lock-b2', false);
    await dispatcher.dispatchDue();
    const received = await receiver.waitFor(4);
    assert.ok(
      received.some((r) => r.url.includes('/acc-2/lock-b2/')),
      `${sent.id} went out, with the places it needed`,
    );
    // The new message's pass and dispatchDue's (which may find that pass still running, and then
    // runs once after it): each reads once.
    assert.ok(reads.length >= 1 && reads.length <= 2, `${reads.length} reads`);
    assert.deepEqual(
      reads.map((r) => r.found),
      reads.length === 1 ? [1] : [1, 0],
    );
    // Only accounts at their limit are left out of that read; neither is at it.
    assert.deepEqual(reads[0]?.skip.accounts, []);
  });
});
