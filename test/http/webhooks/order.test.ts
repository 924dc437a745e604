/**
 * Per-lock order: quick changes of one lock reach the receiver in the order they happened, even
 * when the receiver is slow enough for later messages to queue behind earlier ones.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Received, type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS, putWebhook } from '../../support/webhooks.ts';
import { header, settle } from './helpers.ts';

const states = (requests: readonly Received[]) =>
  requests.map((r) => (JSON.parse(r.body) as { state: string }).state);

describe('webhook order per lock', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  before(async () => {
    // Every answer takes 40 ms: the later changes are written while the earlier ones are out.
    receiver = await startReceiver({ hangMs: 40 });
  });
  after(async () => {
    await receiver.close();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('eight quick hand turns of one lock arrive in the order of the changes, one at a time', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/order/{device_id}` });
    const start = receiver.requests.length;
    const turns: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const locked = i % 2 === 1; // LOCK_A starts locked: unlocked, locked, unlocked, ...
      turns.push(locked);
      await simLockOk(t, LOCK_A, { locked });
    }
    const log = await settle(t, 8);
    const got = (await receiver.waitFor(start + 8)).slice(start);
    assert.deepEqual(
      states(got),
      turns.map((l) => (l ? 'locked' : 'unlocked')),
    );
    // The log lists them in the same order, and they went out in that order.
    assert.deepEqual(
      got.map((r) => header(r.headers, 'webhook-id')),
      log.map((e) => e.id),
    );
    const timestamps = got.map((r) => Number(header(r.headers, 'webhook-timestamp')));
    assert.deepEqual(
      timestamps,
      [...timestamps].sort((a, b) => a - b),
    );
    const arrivals = got.map((r) => r.arrivedAtMono);
    assert.deepEqual(
      arrivals,
      [...arrivals].sort((a, b) => a - b),
    );
    // One lock, one message in flight at a time: the next waits for the answer to the last.
    assert.equal(receiver.maxOpen, 1);
    assert.ok(log.every((e) => e.status === 'delivered'));
  });

  it('two locks changing together: each keeps its own order, and they do not wait for each other', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/order/{device_id}`, method: 'POST' });
    const start = receiver.requests.length;
    // A starts locked, B unlocked; commands and hand turns interleaved.
    const steps: [string, 'hand' | 'v3', boolean][] = [
      [LOCK_A, 'v3', false],
      [LOCK_B, 'hand', true],
      [LOCK_A, 'hand', true],
      [LOCK_B, 'v3', false],
      [LOCK_A, 'v3', false],
      [LOCK_B, 'hand', true],
      [LOCK_A, 'hand', true],
      [LOCK_B, 'hand', false],
    ];
    for (const [lock, how, locked] of steps) {
      if (how === 'hand') await simLockOk(t, lock, { locked });
      else {
        const taskId = await startTask(t, lock, locked ? 'lock' : 'unlock');
        assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
      }
    }
    await settle(t, steps.length);
    const got = (await receiver.waitFor(start + steps.length)).slice(start);
    for (const lock of [LOCK_A, LOCK_B]) {
      assert.deepEqual(
        states(got.filter((r) => r.url === `/order/${lock}`)),
        steps.filter(([l]) => l === lock).map(([, , locked]) => (locked ? 'locked' : 'unlocked')),
        lock,
      );
    }
    assert.ok(receiver.maxOpen <= 2);
  });
});
