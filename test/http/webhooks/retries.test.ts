/**
 * Opt-in retries (PUT /ext/webhook {"retries": true}): a failed attempt is tried again after 5 s,
 * 30 s, ... on the server's clock, noticed by the dispatcher's once-a-second real-time poll; a
 * Retry-After asking for longer is honoured; 410 Gone stops at once; every attempt carries the same
 * webhook-id.
 *
 * Positive checks move the sandbox clock and wait for the poll to send the retry. Negative checks
 * ("not yet") change another lock: that sends its message at once, in a dispatch pass that would
 * also have sent any retry then due, so once it is delivered the log shows whether the retry went.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, type Reply, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS, type LogEntry, putWebhook } from '../../support/webhooks.ts';
import { header, serverNow, settle, waitForLog } from './helpers.ts';

describe('opt-in retries', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  /** Answers per lock, in order; the last one repeats. */
  let script: Record<string, Reply[]> = {};
  const served: Record<string, number> = {};
  before(async () => {
    receiver = await startReceiver((r) => {
      const lock = r.url.split('/')[2] ?? '';
      const replies = script[lock] ?? [{}];
      const n = served[lock] ?? 0;
      served[lock] = n + 1;
      return replies[Math.min(n, replies.length - 1)] ?? {};
    });
  });
  after(async () => {
    await receiver.close();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    script = {};
    otherLocked = false;
    for (const key of Object.keys(served)) delete served[key];
  });

  const forLock = (lock: string, from: number) =>
    receiver.requests.slice(from).filter((r) => r.url.startsWith(`/retry/${lock}/`));
  const entryOf = (log: LogEntry[], lock: string): LogEntry => {
    const entry = log.find((e) => e.device_id === lock);
    assert.ok(entry, `no log entry for ${lock}`);
    return entry;
  };

  /** Another lock changes: its message goes out at once; answers the log after it was delivered. */
  let otherLocked = false; // LOCK_B starts unlocked
  async function sentinel(expectedEntries: number): Promise<LogEntry[]> {
    otherLocked = !otherLocked;
    await simLockOk(t as TestServer, LOCK_B, { locked: otherLocked });
    return waitForLog(
      t as TestServer,
      'the other lock delivered',
      (log) =>
        log.length >= expectedEntries &&
        log.filter((e) => e.device_id === LOCK_B).every((e) => e.status === 'delivered'),
    );
  }

  async function start(): Promise<TestServer> {
    t = await startServer({ flags: FLAGS });
    const answered = await putWebhook(t, { url: `${receiver.url}/retry/{device_id}/{state}`, retries: true });
    assert.equal(answered.retries, true);
    return t;
  }

  it('a 500 is retried after 5 s, then 30 s, not earlier, with the same webhook-id, until it succeeds', async () => {
    const server = await start();
    script[LOCK_A] = [{ status: 500 }, { status: 500 }, {}];
    const from = receiver.requests.length;
    await simLockOk(server, LOCK_A, { locked: false });
    let log = await settle(server, 1);
    let entry = entryOf(log, LOCK_A);
    assert.deepEqual([entry.status, entry.attempts, entry.response_status], ['pending', 1, 500]);
    const firstAttemptAt = Date.parse(entry.last_attempt_at ?? '');
    assert.equal(Date.parse(entry.next_attempt_at ?? ''), firstAttemptAt + 5_000);

    // 3 s later: not due yet.
    await advanceClock(server, 3);
    log = await sentinel(2);
    assert.equal(entryOf(log, LOCK_A).attempts, 1);
    assert.equal(forLock(LOCK_A, from).length, 1);

    // Past 5 s: the poll sends it.
    await advanceClock(server, 3);
    await receiver.waitFor(from + 3, 5_000);
    log = await waitForLog(server, 'attempt 2 recorded', (l) => entryOf(l, LOCK_A).attempts === 2);
    entry = entryOf(log, LOCK_A);
    assert.deepEqual([entry.status, entry.response_status], ['pending', 500]);
    const secondAttemptAt = Date.parse(entry.last_attempt_at ?? '');
    assert.equal(Date.parse(entry.next_attempt_at ?? ''), secondAttemptAt + 30_000);

    // 27 s later: not due yet; past 30 s: sent, and it succeeds.
    await advanceClock(server, 27);
    log = await sentinel(2);
    assert.equal(entryOf(log, LOCK_A).attempts, 2);
    await advanceClock(server, 4);
    log = await waitForLog(server, 'attempt 3 delivered', (l) => entryOf(l, LOCK_A).status === 'delivered');
    entry = entryOf(log, LOCK_A);
    assert.deepEqual(
      [entry.attempts, entry.response_status, entry.error, entry.next_attempt_at],
      [3, 200, null, null],
    );

    const attempts = forLock(LOCK_A, from);
    assert.equal(attempts.length, 3);
    assert.deepEqual(
      attempts.map((r) => header(r.headers, 'webhook-id')),
      [entry.id, entry.id, entry.id],
    );
    assert.deepEqual(
      attempts.map((r) => r.body),
      attempts.map(() => attempts[0]?.body),
    );
    // Each attempt is stamped (and signed) at its own time, on the server's clock.
    const stamps = attempts.map((r) => Number(header(r.headers, 'webhook-timestamp')));
    assert.ok(
      (stamps[1] ?? 0) - (stamps[0] ?? 0) >= 5 && (stamps[2] ?? 0) - (stamps[1] ?? 0) >= 30,
      `${stamps}`,
    );
  });

  it('Retry-After asking for longer than the schedule is honoured: not retried early', async () => {
    const server = await start();
    script[LOCK_A] = [{ status: 503, retryAfter: '120' }, {}];
    const from = receiver.requests.length;
    await simLockOk(server, LOCK_A, { locked: false });
    const log = await settle(server, 1);
    const entry = entryOf(log, LOCK_A);
    assert.deepEqual([entry.status, entry.attempts, entry.response_status], ['pending', 1, 503]);
    assert.equal(Date.parse(entry.next_attempt_at ?? ''), Date.parse(entry.last_attempt_at ?? '') + 120_000);

    // Past the schedule's 5 s and 30 s, short of 120 s: still waiting.
    await advanceClock(server, 60);
    assert.equal(entryOf(await sentinel(2), LOCK_A).attempts, 1);
    await advanceClock(server, 55);
    assert.equal(entryOf(await sentinel(3), LOCK_A).attempts, 1);
    assert.equal(forLock(LOCK_A, from).length, 1);
    // Past 120 s: sent.
    await advanceClock(server, 6);
    const done = await waitForLog(
      server,
      'the retry delivered',
      (l) => entryOf(l, LOCK_A).status === 'delivered',
    );
    assert.equal(entryOf(done, LOCK_A).attempts, 2);
    assert.equal(forLock(LOCK_A, from).length, 2);
  });

  it('Retry-After as an HTTP date is honoured too', async () => {
    const server = await start();
    const now = await serverNow(server);
    // The receiver's notion of "now" is the real one; the server compares with its own clock.
    script[LOCK_A] = [{ status: 429, retryAfter: new Date(Date.now() + 300_000).toUTCString() }, {}];
    await simLockOk(server, LOCK_A, { locked: false });
    const entry = entryOf(await settle(server, 1), LOCK_A);
    assert.deepEqual([entry.status, entry.response_status], ['pending', 429]);
    const wait = Date.parse(entry.next_attempt_at ?? '') - Date.parse(entry.last_attempt_at ?? '');
    assert.ok(wait > 290_000 && wait <= 300_000, `waits ${wait} ms`);
    assert.ok(Date.parse(entry.created_at) >= now);
  });

  it('410 Gone stops at once: failed after one attempt, never tried again', async () => {
    const server = await start();
    script[LOCK_A] = [{ status: 410 }, {}];
    const from = receiver.requests.length;
    await simLockOk(server, LOCK_A, { locked: false });
    const entry = entryOf(await settle(server, 1), LOCK_A);
    assert.deepEqual(
      [entry.status, entry.attempts, entry.response_status, entry.next_attempt_at],
      ['failed', 1, 410, null],
    );
    await advanceClock(server, 2 * 60 * 60);
    const log = await sentinel(2);
    assert.deepEqual([entryOf(log, LOCK_A).status, entryOf(log, LOCK_A).attempts], ['failed', 1]);
    assert.equal(forLock(LOCK_A, from).length, 1);
  });

  it("a lock's later change waits behind its message waiting for a retry: the receiver ends on the latest state", async () => {
    const server = await start();
    script[LOCK_A] = [{ status: 500 }, {}];
    const from = receiver.requests.length;
    await simLockOk(server, LOCK_A, { locked: false }); // attempt 1: 500, retry in 5 s
    await settle(server, 1);
    await simLockOk(server, LOCK_A, { locked: true }); // must not overtake the unlocked message
    // Other locks are not held up by it.
    await sentinel(3);
    assert.deepEqual(
      forLock(LOCK_A, from).map((r) => r.url),
      [`/retry/${LOCK_A}/unlocked`],
    );
    await advanceClock(server, 6);
    await waitForLog(server, 'both delivered', (l) =>
      l.filter((e) => e.device_id === LOCK_A).every((e) => e.status === 'delivered'),
    );
    assert.deepEqual(
      forLock(LOCK_A, from).map((r) => r.url),
      [`/retry/${LOCK_A}/unlocked`, `/retry/${LOCK_A}/unlocked`, `/retry/${LOCK_A}/locked`],
    );
  });

  it('the retries end after the schedule: failed, with the last status', async () => {
    const server = await start();
    script[LOCK_A] = [{ status: 500 }];
    const from = receiver.requests.length;
    await simLockOk(server, LOCK_A, { locked: false });
    await settle(server, 1);
    // 5 s, 30 s, 2 min, 10 min, 1 h: five retries after the first attempt.
    for (const [i, seconds] of [5, 30, 120, 600, 3600].entries()) {
      await advanceClock(server, seconds + 1);
      await waitForLog(server, `attempt ${i + 2}`, (l) => entryOf(l, LOCK_A).attempts === i + 2);
    }
    const entry = entryOf(await settle(server, 1), LOCK_A);
    assert.deepEqual(
      [entry.status, entry.attempts, entry.response_status, entry.error, entry.next_attempt_at],
      ['failed', 6, 500, 'HTTP 500', null],
    );
    assert.equal(forLock(LOCK_A, from).length, 6);
  });
});
