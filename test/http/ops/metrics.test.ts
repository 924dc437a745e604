/**
 * GET /metrics on the metrics listener (`--metrics-port`): Prometheus text with the request histogram
 * labelled by route pattern (never the raw URL), commands by outcome, webhook attempts by outcome,
 * the connected access points, and the process metrics; each server counts only its own. Never on
 * the API port: metrics-listener.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  getLock,
  LOCK_A,
  LOCK_B,
  OWNER_KEY,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { putWebhook, sendTestEvent, waitForOutcome } from '../../support/webhooks.ts';

/** The value of the sample with exactly these labels (in the exposition's order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const rendered = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = rendered === '' ? `${name} ` : `${name}{${rendered}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

async function scrape(t: TestServer): Promise<string> {
  const url = t.server.metricsUrl;
  assert.ok(url, 'the server has a metrics listener');
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return res.text();
}

describe('GET /metrics', () => {
  let t: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver({ status: 204 });
    t = await startServer({ flags: ['--no-rate-limit', '--metrics-port', '0'] });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('labels requests by method, route pattern and status; unknown paths are one label', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await getLock(t, LOCK_A)).status, 200);
    assert.equal((await t.request('/public/lock/not-a-uuid-7f3a', { key: OWNER_KEY })).status, 400);
    for (const path of ['/scan/a1b2c3', '/scan/d4e5f6', '/wp-admin.php']) {
      assert.equal((await t.request(path)).status, 404);
    }
    const text = await scrape(t);
    const route = (method: string, r: string, status: string) => ({ method, route: r, status_code: status });
    const h = 'http_request_duration_seconds_count';
    assert.equal(sample(text, h, route('GET', '/public/lock/:device_id', '200')), 3);
    assert.equal(sample(text, h, route('GET', '/public/lock/:device_id', '400')), 1);
    assert.equal(sample(text, h, route('GET', 'unmatched', '404')), 3);
    const inf = { le: '+Inf', ...route('GET', 'unmatched', '404') };
    assert.equal(sample(text, 'http_request_duration_seconds_bucket', inf), 3);
    for (const raw of ['a1b2c3', 'wp-admin', 'not-a-uuid', LOCK_A]) assert.ok(!text.includes(raw), raw);
  });

  it('counts commands by command and outcome, every outcome from 0', async () => {
    const before = await scrape(t);
    assert.equal(sample(before, 'lockcloud_commands_total', { command: 'lock', outcome: 'JAMMED' }), 0);
    await waitForTask(t, await startTask(t, LOCK_A, 'unlock'));
    await simLockOk(t, LOCK_B, { fail_next: 'JAMMED' });
    await waitForTask(t, await startTask(t, LOCK_B, 'lock'));
    const text = await scrape(t);
    const count = (command: string, outcome: string) =>
      sample(text, 'lockcloud_commands_total', { command, outcome });
    assert.equal(count('unlock', 'success'), 1);
    assert.equal(count('lock', 'JAMMED'), 1);
    assert.equal(count('lock', 'success'), 0);
    assert.equal(count('sync', 'TIMEOUT'), 0);
  });

  it("counts the store's statements, calls and commits: a transaction is one call of several statements", async () => {
    const before = await scrape(t);
    await waitForTask(t, await startTask(t, LOCK_A, 'lock'));
    const text = await scrape(t);
    const delta = (name: string) => (sample(text, name) ?? Number.NaN) - (sample(before, name) ?? Number.NaN);
    const calls = delta('lockcloud_store_calls_total');
    const statements = delta('lockcloud_store_statements_total');
    // At least the task made and ended (its events with it, each in a transaction), and the scrape.
    assert.ok(calls >= 2, `calls: ${calls}`);
    assert.ok(statements >= calls + 4, `statements: ${statements}, calls: ${calls}`);
    // The create and the end each committed, alone or with others of their turn.
    const commits = delta('lockcloud_store_commits_total');
    assert.ok(commits >= 2 && commits <= calls, `commits: ${commits}, calls: ${calls}`);
    // SQLite's read cache asks the file, not the database: no fence.
    assert.equal(delta('lockcloud_store_fences_total'), 0);
  });

  it('counts webhook attempts by outcome', async () => {
    await putWebhook(t, { url: `${receiver.url}/hook/{device_id}/{state}`, method: 'POST' });
    const delivered = await sendTestEvent(t);
    assert.equal((await waitForOutcome(t, delivered)).status, 'delivered');
    receiver.respond({ status: 500 });
    const failed = await sendTestEvent(t);
    assert.equal((await waitForOutcome(t, failed)).status, 'failed');
    const text = await scrape(t);
    const count = (outcome: string) => sample(text, 'lockcloud_webhook_attempts_total', { outcome });
    assert.equal(count('delivered'), 1);
    assert.equal(count('failed'), 1);
    assert.equal(count('retry_scheduled'), 0);
  });

  it('reports the connected access points (the seed gives each owner one) and the process metrics', async () => {
    const text = await scrape(t);
    assert.equal(sample(text, 'lockcloud_access_points_connected'), 2);
    assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? -1) > 0);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.match(text, /^nodejs_heap_size_used_bytes /m);
  });

  it('each server counts its own: a second server starts from 0', async () => {
    const other = await startServer({ flags: ['--metrics-port', '0'] });
    try {
      const text = await scrape(other);
      assert.equal(sample(text, 'lockcloud_commands_total', { command: 'unlock', outcome: 'success' }), 0);
      assert.equal(
        sample(text, 'http_request_duration_seconds_count', {
          method: 'GET',
          route: '/public/lock/:device_id',
          status_code: '200',
        }),
        undefined,
      );
    } finally {
      await other.close();
    }
  });
});
