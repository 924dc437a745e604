/**
 * Webhook receivers that hang (issue 11, point 3), below what test/http/webhooks/isolation*.ts covers
 * (a node:http receiver that reads the request and holds its answer):
 *
 * - one that accepts the TCP connection, reads, and never writes a byte;
 * - one that sends a 200 status line and headers and then trickles a chunked body forever;
 * - one that sends headers announcing a body that never comes.
 *
 * Each attempt ends at the documented timeout (--webhook-timeout-ms, here 2 s) as
 * "no answer within 2000 ms", and its connection is closed. Retries (opt-in) follow docs/webhooks.md:
 * after 5 s, then 30 s, on the server's clock (moved by /_sim/clock, not waited for), with the same
 * webhook-id. Meanwhile a third account's receiver gets its messages at once, commands and reads
 * answer, and once a receiver answers again its messages are delivered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../src/app/seed/schema.ts';
import { settle } from '../http/webhooks/helpers.ts';
import { eventually } from '../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  simLockOk,
  standardSeed,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { deliveries, type LogEntry } from '../support/webhooks.ts';
import { type RawReceiver, rawHeader, startRawReceiver } from './raw-receiver.ts';

const TIMEOUT_MS = 2000;
const TIMED_OUT = `no answer within ${TIMEOUT_MS} ms`;
const THIRD = 'third@example.com';
const THIRD_KEY = 'third-api-key-0003';
const THIRD_LOCK = '00000000-0000-4000-8000-0000000000dd';

function seed(silent: string, slow: string, healthy: string): Seed {
  const base = standardSeed();
  return {
    ...base,
    accounts: [...(base.accounts ?? []), { email: THIRD, password: 'third-password', verified: true }],
    api_keys: [...(base.api_keys ?? []), { account: THIRD, key: THIRD_KEY }],
    locks: [...(base.locks ?? []), { device_id: THIRD_LOCK, serial: 'SERIAL00DD', owner: THIRD }],
    webhooks: [
      { account: OWNER, url: `${silent}/silent/{device_id}/{state}`, retries: true },
      { account: OTHER, url: `${slow}/slow/{device_id}/{state}` },
      { account: THIRD, url: `${healthy}/healthy/{device_id}/{state}` },
    ],
  };
}

async function entry(
  t: TestServer,
  key: string,
  probe: (e: LogEntry) => boolean,
  what: string,
): Promise<LogEntry> {
  let found: LogEntry | undefined;
  await eventually(what, async () => {
    found = (await deliveries(t, key)).find(probe);
    return found !== undefined;
  });
  return found as LogEntry;
}

describe('webhook receivers that hang', () => {
  let silent: RawReceiver;
  let slow: RawReceiver;
  let healthy: Receiver;
  let t: TestServer;
  before(async () => {
    silent = await startRawReceiver('silent');
    slow = await startRawReceiver('trickle');
    healthy = await startReceiver();
    t = await startServer({
      seed: seed(silent.url, slow.url, healthy.url),
      flags: ['--no-rate-limit', '--webhook-timeout-ms', String(TIMEOUT_MS)],
    });
  });
  after(async () => {
    await t.close();
    await silent.close();
    await slow.close();
    await healthy.close();
  });

  it('time out, close their connections, retry on schedule, do not hold up others, and recover', async (c) => {
    // The owner's lock unlocks (silent receiver, retries on); the other account's lock unlocks (trickle).
    await simLockOk(t, LOCK_A, { locked: false });
    await simLockOk(t, OTHER_LOCK, { locked: false });
    await eventually(
      'both hanging receivers to be connected',
      async () => silent.open() > 0 && slow.open() > 0,
    );
    const firstAttemptAt = performance.now();

    // While both hang: the third account's message arrives, commands and reads answer.
    let heldWhenHealthyArrived = -1;
    healthy.respond(() => {
      heldWhenHealthyArrived = silent.open() + slow.open();
      return {};
    });
    await simLockOk(t, THIRD_LOCK, { locked: false });
    const [third] = await healthy.waitFor(1);
    assert.equal(third?.url, `/healthy/${THIRD_LOCK}/unlocked`);
    assert.equal(heldWhenHealthyArrived, 2, 'the healthy message arrived while both others hung');
    const task = await startTask(t, LOCK_B, 'lock', OWNER_KEY);
    assert.deepEqual(await waitForTask(t, task), { status: 'terminated', successful: true });
    const read = await t.request(`/public/lock/${OTHER_LOCK}`, { key: OTHER_KEY });
    assert.deepEqual(await read.json(), { locked: false, battery: 100, responsive: true });
    const stillHanging = silent.open() + slow.open();

    // The first attempts end on the timeout; their connections are closed.
    const owner = await entry(
      t,
      OWNER_KEY,
      (e) => e.device_id === LOCK_A && e.attempts === 1,
      'the owner’s attempt',
    );
    assert.deepEqual(
      [owner.status, owner.error, owner.response_status],
      ['pending', TIMED_OUT, null],
      JSON.stringify(owner),
    );
    // The schedule: the first retry 5 s after the first attempt.
    const scheduled = Date.parse(owner.next_attempt_at ?? '') - Date.parse(owner.last_attempt_at ?? '');
    assert.equal(scheduled, 5000);
    const other = await entry(t, OTHER_KEY, (e) => e.status === 'failed', 'the trickled delivery to fail');
    assert.deepEqual([other.error, other.attempts, other.response_status], [TIMED_OUT, 1, null]);
    await eventually(
      'the hanging connections to be closed',
      async () => silent.open() === 0 && slow.open() === 0,
    );
    const closedAfterMs = performance.now() - firstAttemptAt;

    // The owner's LOCK_B change waits behind nothing (another lock) but goes to the same silent host:
    // it times out too. The retry of LOCK_A's message comes only when the server clock allows.
    const settledOwner = await settle(t, 2);
    assert.deepEqual(
      settledOwner.map((e) => [e.device_id, e.status, e.attempts, e.error]),
      [
        [LOCK_A, 'pending', 1, TIMED_OUT],
        [LOCK_B, 'pending', 1, TIMED_OUT],
      ],
    );
    const connectionsBeforeRetry = silent.received.length;
    await advanceClock(t, 5);
    await eventually('the first retries', async () => {
      const log = await deliveries(t, OWNER_KEY);
      return log.every((e) => e.attempts === 2 && e.status === 'pending');
    });
    const second = await deliveries(t, OWNER_KEY);
    for (const e of second) {
      assert.equal(e.error, TIMED_OUT);
      assert.equal(Date.parse(e.next_attempt_at ?? '') - Date.parse(e.last_attempt_at ?? ''), 30_000);
    }
    assert.equal(silent.received.length, connectionsBeforeRetry + 2);
    await eventually('the retries’ connections to be closed', async () => silent.open() === 0);

    // The receivers recover: the next retry is delivered, and so is a new message to the other one.
    silent.mode('ok');
    slow.mode('ok');
    await advanceClock(t, 30);
    await eventually('the second retries to be delivered', async () =>
      (await deliveries(t, OWNER_KEY)).every((e) => e.status === 'delivered'),
    );
    const delivered = await deliveries(t, OWNER_KEY);
    assert.deepEqual(
      delivered.map((e) => [e.device_id, e.status, e.attempts, e.response_status, e.error]),
      [
        [LOCK_A, 'delivered', 3, 200, null],
        [LOCK_B, 'delivered', 3, 200, null],
      ],
    );
    // Every attempt of a message carried its webhook-id.
    for (const e of delivered) {
      const ids = silent.received
        .filter((raw) => raw.includes(`/silent/${e.device_id}/`))
        .map((raw) => rawHeader(raw, 'webhook-id'));
      assert.deepEqual(ids, [e.id, e.id, e.id]);
    }
    await simLockOk(t, OTHER_LOCK, { locked: true });
    const recovered = await entry(
      t,
      OTHER_KEY,
      (e) => e.status === 'delivered',
      'the other account’s next message',
    );
    assert.equal(recovered.url, `${slow.url}/slow/${OTHER_LOCK}/locked`);
    await eventually('every connection to be closed', async () => silent.open() === 0 && slow.open() === 0);

    c.diagnostic(
      `hanging connections open while the API answered: ${stillHanging}; closed ${Math.round(closedAfterMs)} ms after the first attempt (timeout ${TIMEOUT_MS} ms)`,
    );
    c.diagnostic(`silent receiver: ${silent.received.length} connections for 2 messages x 3 attempts`);
  });

  it('a body announced in the headers that never comes also ends on the timeout', async () => {
    slow.mode('stall');
    const from = slow.received.length;
    const earlier = new Set((await deliveries(t, OTHER_KEY)).map((e) => e.id));
    // OTHER_LOCK is locked after the first test: unlocking it is a change, so a message.
    await simLockOk(t, OTHER_LOCK, { locked: false });
    const stalled = await entry(
      t,
      OTHER_KEY,
      (e) => !earlier.has(e.id) && e.status !== 'pending' && e.status !== 'sending',
      'the stalled delivery to end',
    );
    assert.deepEqual([stalled.status, stalled.error, stalled.attempts], ['failed', TIMED_OUT, 1]);
    assert.equal(stalled.response_status, null);
    assert.equal(slow.received.length, from + 1);
    await eventually('its connection to be closed', async () => slow.open() === 0);
  });
});
