/**
 * One tenant cannot delay another's webhooks (issue 17, point 4), with the probe's own attack: account
 * A queues 240 messages to 8 receivers on one host (8 ports) that hold every request for longer than
 * the test lasts, and floods test events and resends on top. Account B's unlock must reach B's
 * receiver while every request A's receivers got is still held: B was not queued behind A. And
 * nothing of A's is lost: each of its messages is in its log, out, waiting, or refused with a reason.
 *
 * No durations are asserted; the latency B sees under this attack is measured by
 * `npm run bench -- webhook-fairness`. Rate limits are on (the default), so the test-and-resend
 * budget applies; only setting the webhook and reading the log get room, since the setup changes
 * A's URL 48 times and polls its log in a second or two. The delivery timeout is the longest allowed, so A's requests never end by themselves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  answer,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  simLockOk,
  standardSeed,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { deliveryLog, type LogEntry, putWebhook } from '../../support/webhooks.ts';
import { limitsFile } from '../rate-limits/helpers.ts';
import { waitForLog } from './helpers.ts';

const PORTS = 8;
const LOCKS_PER_PORT = 5;
const ROUNDS = 6; // 8 ports x 5 locks x 6 changes = 240 messages
const FLOOD = 45; // test events and resends asked for on top: more than the budget of 30
const lockOf = (port: number, i: number) =>
  `00000000-0000-4000-8000-0000000a${String(port).padStart(2, '0')}${String(i).padStart(2, '0')}`;

describe('a tenant with 240 messages to 8 hanging receivers on one host', () => {
  let t: TestServer;
  let hanging: Receiver[];
  let healthy: Receiver;
  const roomy = { burst: 1000, per_second: 1000 };
  const limits = limitsFile({
    endpoints: {
      'PUT /ext/webhook': { account: roomy, ip: roomy },
      'GET /ext/webhook/deliveries': { account: roomy, ip: roomy },
    },
  });
  before(async () => {
    hanging = await Promise.all(Array.from({ length: PORTS }, () => startReceiver({ hangMs: 120_000 })));
    healthy = await startReceiver();
    const base = standardSeed();
    const locks = [];
    for (let port = 0; port < PORTS; port++)
      for (let i = 0; i < LOCKS_PER_PORT; i++)
        locks.push({ device_id: lockOf(port, i), serial: `SERIALF${port}${i}`, owner: OWNER, locked: true });
    t = await startServer({
      flags: ['--webhook-timeout-ms', '60000', '--rate-limits', limits.path],
      seed: {
        ...base,
        locks: [...(base.locks ?? []), ...locks],
        webhooks: [{ account: OTHER, url: `${healthy.url}/b/{device_id}/{state}` }],
      },
    });
  });
  after(async () => {
    await t.close();
    await Promise.all([...hanging.map((r) => r.close()), healthy.close()]);
    limits.remove();
  });

  it("delays no other account's webhook, and loses none of its own", async () => {
    // A's messages: each lock's first message decides where its lock's queue waits, so every
    // port gets locks of its own; the webhook URL is changed between the groups (it is read when
    // a message is made). 240 in all, 30 to each port.
    const made: { deviceId: string; port: number; state: 'locked' | 'unlocked' }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let port = 0; port < PORTS; port++) {
        await putWebhook(t, { url: `${hanging[port]?.url}/a/{device_id}/{state}` });
        for (let i = 0; i < LOCKS_PER_PORT; i++) {
          const locked = round % 2 === 1;
          await simLockOk(t, lockOf(port, i), { locked });
          made.push({ deviceId: lockOf(port, i), port, state: locked ? 'locked' : 'unlocked' });
        }
        await waitForLog(t, `${made.length} messages made`, (log) => log.length === made.length);
      }
    }

    // The flood: test events and resends, past the per-account budget.
    const accepted: string[] = [];
    const refused: { status: number; body: unknown; retryAfter: string | null }[] = [];
    const [some] = await deliveryLog(t);
    for (let i = 0; i < FLOOD; i++) {
      const path = i % 3 === 0 ? `/ext/webhook/deliveries/${some?.id}/resend` : '/ext/webhook/test';
      const res = await t.request(path, { method: 'POST', key: OWNER_KEY });
      const retryAfter = res.headers.get('retry-after');
      const { status, body } = await answer(res);
      if (status === 202) accepted.push((body as { delivery_id: string }).delivery_id);
      else refused.push({ status, body, retryAfter });
    }
    assert.ok(accepted.length >= 30 && accepted.length < FLOOD, `${accepted.length} accepted`);
    for (const r of refused) {
      assert.equal(r.status, 429);
      assert.equal((r.body as { error?: string }).error, 'THROTTLED');
      assert.match(String((r.body as { message?: string }).message), /too many test events and resends/);
      assert.match(r.retryAfter ?? '', /^[1-9]\d*$/);
    }

    // A's receivers hold what they got; B's lock unlocks.
    const held = () => hanging.reduce((n, r) => n + r.open, 0);
    const got = () => hanging.reduce((n, r) => n + r.requests.length, 0);
    await waitForLog(t, "A's first messages to be out", (log) => log.some((e) => e.status === 'sending'));
    await eventually("A's receivers to hold a request", () => held() > 0).catch(() => undefined);
    let heldWhenBArrived = -1;
    let gotWhenBArrived = -1;
    healthy.respond(() => {
      heldWhenBArrived = held();
      gotWhenBArrived = got();
      return {};
    });
    await simLockOk(t, OTHER_LOCK, { locked: false });
    const [b] = await healthy.waitFor(1, 15_000);
    assert.equal(b?.url, `/b/${OTHER_LOCK}/unlocked`);
    assert.ok(heldWhenBArrived > 0, 'A had requests out when B arrived');
    assert.equal(heldWhenBArrived, gotWhenBArrived, 'every request A’s receivers got was still held');
    const bLog = await deliveryLog(t, OTHER_KEY);
    assert.deepEqual(
      bLog.map((e) => [e.status, e.response_status]),
      [['delivered', 200]],
    );

    // Nothing of A's is lost: every message made is in the log once, out, waiting or refused with a reason.
    const log = await deliveryLog(t, OWNER_KEY);
    assert.equal(log.length, made.length + accepted.length);
    const asked = new Set(accepted);
    const changes = log.filter((e) => !asked.has(e.id));
    const key = (deviceId: string, port: number, state: string) =>
      `${hanging[port]?.url}/a/${deviceId}/${state}`;
    assert.deepEqual(
      changes.map((e) => e.url).sort(),
      made.map((m) => key(m.deviceId, m.port, m.state)).sort(),
    );
    const ids = new Set(log.map((e) => e.id));
    for (const id of accepted) assert.ok(ids.has(id), `test or resend ${id} is logged`);
    assert.ok(changes.every((e) => e.event === 'lock.state_changed'));
    for (const entry of log) assert.ok(accounted(entry), JSON.stringify(entry));
    // A holds 4 places at its one receiver host, however many ports it spreads over.
    assert.equal(log.filter((e) => e.status === 'sending').length, 4);
    assert.equal(held(), 4);
  });
});

/** Out, waiting, or ended with a reason: never gone. */
function accounted(entry: LogEntry): boolean {
  if (entry.status === 'sending' || entry.status === 'pending') return entry.error === null;
  return entry.status === 'failed' && typeof entry.error === 'string' && entry.error !== '';
}
