/**
 * A delivery in flight when the server goes away is not sent again after a restart on the same data
 * directory: at most once, and the log says it was interrupted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { startProcess } from '../../support/process.ts';
import { LOCK_A, LOCK_B, simLockOk, startServer, type TestServer } from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { deliveries, FLAGS } from '../../support/webhooks.ts';
import { header, ownerHook, seedWithWebhooks, settle } from './helpers.ts';

describe('a delivery in flight when the server goes away', () => {
  let receiver: Receiver;
  let dataDir: string;
  let running: TestServer | undefined;
  before(async () => {
    receiver = await startReceiver({ hangMs: 30_000 });
  });
  beforeEach(() => {
    receiver.respond({ hangMs: 30_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-webhook-crash-'));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });
  after(async () => {
    await receiver.close();
  });

  it('close(): it is cut short, logged failed as interrupted, and not sent again after a restart', async () => {
    const seed = seedWithWebhooks([ownerHook(`${receiver.url}/crash/{device_id}/{state}`)]);
    const first = await startServer({ dataDir, seed, flags: FLAGS });
    running = first;
    await simLockOk(first, LOCK_A, { locked: false });
    const [inFlight] = await receiver.waitFor(1);
    assert.ok(inFlight);
    const [entry] = await deliveries(first);
    assert.deepEqual([entry?.status, entry?.id], ['sending', header(inFlight.headers, 'webhook-id')]);

    // The server goes away while the receiver still holds the request.
    const closing = performance.now();
    await first.close();
    running = undefined;
    const closeMs = performance.now() - closing;
    console.log(`[webhook crash] close() with a delivery in flight took ${Math.round(closeMs)} ms`);
    // The closed server keeps nothing open to the receiver (and nothing of it writes to its closed
    // store later: that would fail this test as an unhandled rejection).
    await receiver.waitNoneOpen();

    receiver.respond({});
    const second = await startServer({ dataDir, seed: null, flags: FLAGS });
    running = second;
    const [logged] = await settle(second, 1);
    assert.ok(logged);
    assert.equal(logged.id, entry?.id);
    assert.deepEqual(
      [logged.status, logged.attempts, logged.error, logged.response_status],
      ['failed', 1, 'interrupted by a shutdown; not sent again', null],
    );

    // The new process sends new changes; the interrupted message is not among them.
    await simLockOk(second, LOCK_B, { locked: true });
    await simLockOk(second, LOCK_A, { locked: true });
    const log = await settle(second, 3);
    assert.deepEqual(
      log.map((e) => [e.device_id, e.status]),
      [
        [LOCK_A, 'failed'],
        [LOCK_B, 'delivered'],
        [LOCK_A, 'delivered'],
      ],
    );
    const got = (await receiver.waitFor(3)).slice(0, 3);
    assert.deepEqual(
      got.map((r) => r.url),
      [`/crash/${LOCK_A}/unlocked`, `/crash/${LOCK_B}/locked`, `/crash/${LOCK_A}/locked`],
    );
    assert.equal(new Set(got.map((r) => header(r.headers, 'webhook-id'))).size, 3);
  });

  it('kill -9: after the restart it is logged failed as interrupted and not sent again', async () => {
    const from = receiver.requests.length;
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify(seedWithWebhooks([ownerHook(`${receiver.url}/kill/{device_id}/{state}`)])),
    );
    const first = await startProcess(['--data', dataDir, '--seed', seedFile, '--no-rate-limit']);
    try {
      const turned = await fetch(`${first.url}/_sim/locks/${LOCK_A}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ locked: false }),
      });
      assert.equal(turned.status, 200);
      const inFlight = (await receiver.waitFor(from + 1))[from];
      assert.equal(inFlight?.url, `/kill/${LOCK_A}/unlocked`);
    } finally {
      await first.kill9();
    }
    await receiver.waitNoneOpen();

    receiver.respond({});
    const second = await startServer({ dataDir, seed: null, flags: FLAGS });
    running = second;
    const [entry] = await settle(second, 1);
    assert.ok(entry);
    assert.deepEqual(
      [entry.status, entry.attempts, entry.error, entry.response_status],
      ['failed', 1, 'interrupted by a restart; not sent again', null],
    );
    assert.equal(entry.id, header(receiver.requests[from]?.headers ?? {}, 'webhook-id'));
    // The next change of the same lock goes out; the interrupted message does not go before it.
    await simLockOk(second, LOCK_A, { locked: true });
    await settle(second, 2);
    const got = (await receiver.waitFor(from + 2)).slice(from);
    assert.deepEqual(
      got.map((r) => r.url),
      [`/kill/${LOCK_A}/unlocked`, `/kill/${LOCK_A}/locked`],
    );
  });
});
