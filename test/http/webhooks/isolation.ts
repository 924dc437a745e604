/**
 * The isolation scenario, run with a short and with the default delivery timeout (one file each, so
 * they run side by side): a receiver that hangs for 30 s must not slow the API, must not hold up
 * another account's deliveries to a healthy receiver, and its deliveries end as failed (timeout).
 * Latency is measured and printed, not asserted.
 */
import assert from 'node:assert/strict';
import {
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
} from '../../support/server.ts';
import { startReceiver } from '../../support/webhook-receiver.ts';
import { deliveries, FLAGS } from '../../support/webhooks.ts';
import { settle } from './helpers.ts';

const EXTRA_LOCKS = [0, 1, 2, 3, 4, 5].map((i) => `00000000-0000-4000-8000-0000000000d${i}`);
const OWNER_LOCKS = [LOCK_A, LOCK_B, ...EXTRA_LOCKS];
const REQUESTS = 200;

export interface IsolationOptions {
  /** --webhook-timeout-ms; undefined: the default (5 s). */
  readonly timeoutMs: number | undefined;
  /** How many of the owner's locks change: each one a delivery to the hanging receiver. */
  readonly changes: number;
}

export interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function figures(latencies: number[]): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted[sorted.length - 1] ?? NaN) };
}

export async function isolationScenario(options: IsolationOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const hanging = await startReceiver({ hangMs: 30_000 });
  const healthy = await startReceiver();
  const seed = standardSeed();
  const t = await startServer({
    flags: [
      ...FLAGS,
      ...(options.timeoutMs === undefined ? [] : ['--webhook-timeout-ms', String(timeoutMs)]),
    ],
    seed: {
      ...seed,
      locks: [
        ...(seed.locks ?? []),
        ...EXTRA_LOCKS.map((id, i) => ({ device_id: id, serial: `SERIALD${i}00`, owner: OWNER })),
      ],
      webhooks: [
        { account: OWNER, url: `${hanging.url}/hang/{device_id}/{state}` },
        { account: OTHER, url: `${healthy.url}/healthy/{device_id}/{state}` },
      ],
    },
  });
  try {
    const measure = async (): Promise<{ latencies: number[]; overlapping: number }> => {
      const latencies: number[] = [];
      let overlapping = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        const res = await t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY });
        const body = await res.text();
        latencies.push(performance.now() - started);
        assert.equal(res.status, 200, body);
        if (hanging.open > 0) overlapping++;
      }
      return { latencies, overlapping };
    };

    await measure(); // warm-up: the first requests pay for compilation, not for webhooks
    const quiet = await measure();
    assert.equal(quiet.latencies.length, REQUESTS);

    // The owner's locks change: their deliveries go to the receiver that never answers in time.
    const changed = OWNER_LOCKS.slice(0, options.changes);
    for (const lock of changed) await simLockOk(t, lock, { locked: lock === LOCK_B });
    await hanging.waitFor(Math.min(4, options.changes));

    // Another account's change reaches its healthy receiver while those deliveries hang.
    let heldWhenHealthyArrived = -1;
    healthy.respond(() => {
      heldWhenHealthyArrived = hanging.open;
      return {};
    });
    const turned = performance.now();
    await simLockOk(t, OTHER_LOCK, { locked: false });
    const [healthyDelivery] = await healthy.waitFor(1);
    const healthyMs = (healthyDelivery?.arrivedAtMono ?? NaN) - turned;
    assert.equal(healthyDelivery?.url, `/healthy/${OTHER_LOCK}/unlocked`);
    assert.ok(heldWhenHealthyArrived > 0, 'the healthy delivery arrived while the others hung');

    const loaded = await measure();
    assert.equal(loaded.latencies.length, REQUESTS);

    // Every hanging delivery ends: failed, on the timeout, sent once.
    const log = await settle(t, changed.length);
    assert.equal(log.length, changed.length);
    for (const entry of log) {
      assert.equal(entry.status, 'failed', JSON.stringify(entry));
      assert.equal(entry.response_status, null);
      assert.equal(entry.attempts, 1);
      assert.match(entry.error ?? '', new RegExp(`^no answer within ${timeoutMs} ms$`));
      assert.ok((entry.latency_ms ?? 0) >= timeoutMs - 50, `latency ${entry.latency_ms}`);
    }
    assert.deepEqual(log.map((e) => e.device_id).sort(), [...changed].sort());
    await hanging.waitNoneOpen();
    assert.equal(hanging.requests.length, changed.length, 'no delivery was sent twice');
    // A slow receiver holds at most 4 deliveries (per-host limit); the rest waited their turn.
    assert.equal(hanging.maxOpen, Math.min(4, changed.length));
    const other = await deliveries(t, OTHER_KEY);
    assert.deepEqual(
      other.map((e) => [e.status, e.response_status]),
      [['delivered', 200]],
    );

    const q = figures(quiet.latencies);
    const l = figures(loaded.latencies);
    console.log(
      `[webhook isolation, timeout ${timeoutMs} ms${options.timeoutMs === undefined ? ' (default)' : ''}, ` +
        `${changed.length} hanging deliveries] GET /public/lock/{id} x${REQUESTS}: ` +
        `without hanging receiver p50 ${q.p50} ms p99 ${q.p99} ms (max ${q.max}); ` +
        `with hanging receiver p50 ${l.p50} ms p99 ${l.p99} ms (max ${l.max}), ` +
        `${loaded.overlapping}/${REQUESTS} answered while deliveries hung; ` +
        `healthy receiver got the other account's change after ${Math.round(healthyMs)} ms`,
    );
  } finally {
    await t.close();
    await hanging.close();
    await healthy.close();
  }
}
