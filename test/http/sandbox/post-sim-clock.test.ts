import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  simLock,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { startReceiver } from '../../support/webhook-receiver.ts';
import { deliveryLog, putWebhook, sendTestEvent, waitForOutcome } from '../../support/webhooks.ts';
import { acceptedTask, json, lockStatus, simClock, taskResult } from './helpers.ts';

const HOUR = 3600;

describe('GET /_sim/clock', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('answers the server time as ISO 8601 and epoch milliseconds, near the wall clock at first', async () => {
    const before = Date.now();
    const res = await t.request('/_sim/clock');
    const after = Date.now();
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.deepEqual(Object.keys(body).sort(), ['epoch_ms', 'now']);
    const epoch = body.epoch_ms as number;
    assert.ok(Number.isInteger(epoch));
    assert.ok(epoch >= before && epoch <= after, `${epoch} not within [${before}, ${after}]`);
    assert.equal(body.now, new Date(epoch).toISOString());
  });
});

describe('POST /_sim/clock', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('moves the clock forward by advance_seconds and answers the new time; GET shows it', async () => {
    const start = await simClock(t);
    const res = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: HOUR } });
    assert.equal(res.status, 200);
    const body = await json(res);
    const moved = body.epoch_ms as number;
    assert.equal(body.now, new Date(moved).toISOString());
    assert.ok(moved - start >= HOUR * 1000, 'moved by at least an hour');
    assert.ok(moved - start < HOUR * 1000 + 5000, 'moved by about an hour');
    const read = await simClock(t);
    assert.ok(read >= moved && read - moved < 5000);
  });

  it('adds up over several calls, and 0 is allowed', async () => {
    const start = await simClock(t);
    await advanceClock(t, 0);
    await advanceClock(t, 24 * HOUR);
    await advanceClock(t, 24 * HOUR);
    const now = await simClock(t);
    assert.ok(now - start >= 48 * HOUR * 1000 && now - start < 48 * HOUR * 1000 + 5000);
  });

  it('task timeouts follow it: a command with no answer ends TIMEOUT once 15 s have passed on it', async () => {
    await simLock(t, LOCK_A, { fail_next: 'TIMEOUT' });
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    // The answer comes once every timer due on the way has fired and what it set off has settled.
    await advanceClock(t, 14);
    assert.deepEqual(await (await taskResult(t, taskId)).json(), { status: 'processing', task_id: taskId });
    await advanceClock(t, 1);
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
  });

  it('one jump past a device answer and the task deadline ends the task as the device answered', async () => {
    await simLock(t, LOCK_A, { latency_ms: 10_000 });
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    await advanceClock(t, 60);
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    assert.equal((await lockStatus(t, LOCK_A)).locked, false);
  });

  it('webhook retries follow it: it answers once the retries it made due have started', async () => {
    const receiver = await startReceiver((request) => ({ status: request.index === 0 ? 503 : 204 }));
    try {
      await putWebhook(t, { url: `${receiver.url}/hook`, retries: true });
      const id = await sendTestEvent(t);
      const first = await eventually('the first attempt to fail', async () => {
        const entry = (await deliveryLog(t)).find((e) => e.id === id);
        return entry?.attempts === 1 && entry;
      });
      assert.equal(first.status, 'pending', 'a retry is due later');
      const dueInMs = Date.parse(first.next_attempt_at ?? '') - (await simClock(t));
      assert.ok(dueInMs > 1000, `the retry is ${dueInMs} ms away`);
      // Found by the dispatcher's real-time poll otherwise, within a second of the answer.
      await advanceClock(t, Math.ceil(dueInMs / 1000));
      const retried = (await deliveryLog(t)).find((e) => e.id === id);
      assert.ok(
        retried?.status === 'sending' || retried?.status === 'delivered',
        `started when the clock answered: ${JSON.stringify(retried)}`,
      );
      assert.equal((await waitForOutcome(t, id)).status, 'delivered');
      assert.equal(receiver.requests.length, 2);
    } finally {
      await receiver.close();
    }
  });

  it('task retention follows it: a task ended more than 48 h ago answers BAD_PARAMS', async () => {
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    await advanceClock(t, 24 * HOUR);
    assert.equal((await taskResult(t, taskId)).status, 200, 'kept at least 24 h');
    await advanceClock(t, 24 * HOUR + 1);
    const res = await taskResult(t, taskId);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: 'BAD_PARAMS' });
  });

  it('refuses bad input with 400 BAD_PARAMS and leaves the clock where it was', async () => {
    const start = await simClock(t);
    const bad: unknown[] = [
      {},
      { advance_seconds: -1 },
      { advance_seconds: 1.5 },
      { advance_seconds: '60' },
      { advance_seconds: null },
      { advance_seconds: 11 * 365 * 24 * HOUR },
      { advance_seconds: 60, extra: true },
      { seconds: 60 },
      [],
    ];
    for (const body of bad) {
      const res = await t.request('/_sim/clock', { method: 'POST', json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      const answer = await json(res);
      assert.equal(answer.error, 'BAD_PARAMS', JSON.stringify(body));
      assert.equal(typeof answer.message, 'string');
    }
    const garbled = await t.request('/_sim/clock', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"advance_seconds":',
    });
    assert.equal(garbled.status, 400);
    assert.equal((await json(garbled)).error, 'BAD_PARAMS');
    const now = await simClock(t);
    assert.ok(now - start < 5000, 'the clock did not move');
  });
});
