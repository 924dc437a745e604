/**
 * The SSRF guard, black-box: with --production a webhook to loopback, a private address, the cloud
 * metadata address, a name that resolves to loopback, or IPv6 loopback is refused before any
 * connection is made, and the refusal is logged. --webhook-allow opens a range; sandbox mode opens
 * loopback; a redirect is the receiver's answer, never followed.
 *
 * Every refusal reads the same in the delivery log, and so does a name that does not resolve (issue
 * 17, point 8: no DNS oracle); the server's own log says which it was.
 *
 * Only 127.0.0.1 is ever really connected to: the other addresses are refused before connect(),
 * which the connect spy checks (a test that reached them would fail, not send traffic out and pass).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { eventually } from '../../support/eventually.ts';
import {
  LOCK_A,
  OWNER_KEY,
  standardSeed,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import {
  dispatcherIdle,
  FLAGS,
  type LogEntry,
  putWebhook,
  sendTestEvent,
  waitForOutcome,
} from '../../support/webhooks.ts';
import { type ConnectAttempt, spyOnConnects } from './helpers.ts';

/** Production refuses the sandbox demo data, not a seed. */
const seed: Seed = standardSeed();

/** Sets the webhook to `url`, sends a test event, and answers the delivery's log entry. */
async function deliverTo(t: TestServer, url: string): Promise<LogEntry> {
  await putWebhook(t, { url, method: 'POST' });
  return waitForOutcome(t, await sendTestEvent(t));
}

/** What the delivery log says of every refused or unresolvable destination. */
const REFUSED = 'the destination address is not allowed or could not be resolved';

/** Refused, as the account sees it: one text, no address, no latency, nothing else to tell them apart. */
function assertRefused(entry: LogEntry, what: string): void {
  assert.equal(entry.status, 'failed', `${what}: status`);
  assert.equal(entry.attempts, 1, `${what}: one attempt`);
  assert.equal(entry.response_status, null, `${what}: no answer`);
  assert.equal(entry.error, REFUSED, `${what}: error`);
  assert.equal(entry.latency_ms, null, `${what}: no latency to time a lookup by`);
  assert.equal(entry.next_attempt_at, null, `${what}: not retried`);
}

/**
 * No connect() was asked for these hosts, and no socket reached any of these addresses; the tests' own
 * requests to the server under test (on 127.0.0.1 too) are left out.
 */
function assertNeverConnected(
  t: TestServer,
  attempts: readonly ConnectAttempt[],
  hosts: readonly string[],
): void {
  const serverPort = Number(new URL(t.url).port);
  const outgoing = attempts.filter((a) => a.port !== serverPort);
  const asked = outgoing.filter((a) => hosts.includes(a.host));
  assert.deepEqual(asked, [], 'connect() was called for a forbidden literal address');
  const reached = outgoing.filter(
    (a) => a.connectedTo !== undefined && hosts.includes(a.connectedTo.replace(/^::ffff:/, '')),
  );
  assert.deepEqual(reached, [], 'a socket reached a forbidden address');
}

describe('SSRF guard with --production', () => {
  let t: TestServer;
  let receiver: Receiver;
  let spy: ReturnType<typeof spyOnConnects>;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: ['--production', ...FLAGS], seed });
    spy = spyOnConnects();
  });
  after(async () => {
    spy.restore();
    await t.close();
    await receiver.close();
  });

  it('refuses loopback, private, metadata, a name resolving to loopback, and IPv6 loopback before connecting', async () => {
    const cases = [
      `http://127.0.0.1:${receiver.port}/hook`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data',
      `http://localhost:${receiver.port}/hook`,
      `http://[::1]:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      `https://127.0.0.1:${receiver.port}/hook`,
      `http://[::7f00:1]:${receiver.port}/hook`,
      `http://[2002:7f00:1::]:${receiver.port}/hook`,
    ];
    for (const url of cases) assertRefused(await deliverTo(t, url), url);
    assert.equal(receiver.connections(), 0, 'the receiver was never connected to');
    assert.deepEqual(receiver.requests, []);
    assertNeverConnected(t, spy.attempts, [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '::1',
      '::ffff:127.0.0.1',
      '::7f00:1',
      '2002:7f00:1::',
    ]);
    // The name was looked up (the spy saw connect() asked for it) but refused on its address.
    const toReceiver = spy.attempts.filter((a) => a.port === receiver.port);
    assert.deepEqual(toReceiver, [{ host: 'localhost', port: receiver.port, connectedTo: undefined }]);
  });

  it('refuses the delivery of a real state change the same way', async () => {
    await putWebhook(t, { url: 'http://10.0.0.1/hook/{device_id}/{state}', method: 'POST' });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    const entry = await eventually('the delivery to fail', async () => {
      const res = await t.request('/ext/webhook/deliveries?limit=1', { key: OWNER_KEY });
      const [newest] = (await res.json()) as LogEntry[];
      return newest?.status === 'failed' && newest;
    });
    assert.ok(entry);
    assert.equal(entry.event, 'lock.state_changed');
    assert.equal(entry.url, `http://10.0.0.1/hook/${LOCK_A}/unlocked`);
    assertRefused(entry, 'a real change');
    assertNeverConnected(t, spy.attempts, ['10.0.0.1']);
  });
});

describe('SSRF guard with --production --webhook-allow 127.0.0.0/8', () => {
  let t: TestServer;
  let receiver: Receiver;
  let spy: ReturnType<typeof spyOnConnects>;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: ['--production', ...FLAGS, '--webhook-allow', '127.0.0.0/8'], seed });
    spy = spyOnConnects();
  });
  after(async () => {
    spy.restore();
    await t.close();
    await receiver.close();
  });

  it('delivers to the loopback receiver', async () => {
    const entry = await deliverTo(t, `${receiver.url}/allowed/{state}`);
    assert.equal(entry.status, 'delivered', JSON.stringify(entry));
    assert.equal(entry.response_status, 200);
    assert.equal(entry.error, null);
    await eventually('the receiver to get the delivery', () => receiver.requests.length === 1);
    assert.equal(receiver.requests[0]?.method, 'POST');
    assert.match(receiver.requests[0]?.url ?? '', /^\/allowed\/(locked|unlocked)$/);
    // The spy sees the transport's connections: its silence in the other tests means something.
    assert.deepEqual(
      spy.attempts.filter((a) => a.port === receiver.port),
      [{ host: '127.0.0.1', port: receiver.port, connectedTo: '127.0.0.1' }],
    );
  });

  it('still refuses what the range does not cover, before connecting', async () => {
    assertRefused(await deliverTo(t, 'http://10.0.0.1/'), '10.0.0.1');
    assertRefused(await deliverTo(t, 'http://169.254.169.254/latest/meta-data'), 'metadata');
    assertRefused(await deliverTo(t, `http://[::1]:${receiver.port}/`), '::1');
    assertNeverConnected(t, spy.attempts, ['10.0.0.1', '169.254.169.254', '::1']);
    assert.equal(receiver.requests.length, 1, 'only the allowed delivery arrived');
  });
});

describe('SSRF guard in sandbox mode', () => {
  let t: TestServer;
  let receiver: Receiver;
  let elsewhere: Receiver;
  let redirecting: Receiver;
  let spy: ReturnType<typeof spyOnConnects>;
  before(async () => {
    receiver = await startReceiver();
    elsewhere = await startReceiver();
    redirecting = await startReceiver(() => ({
      status: 302,
      headers: { location: `${elsewhere.url}/elsewhere` },
    }));
    t = await startServer({ flags: FLAGS });
    spy = spyOnConnects();
  });
  after(async () => {
    spy.restore();
    await t.close();
    await Promise.all([receiver.close(), elsewhere.close(), redirecting.close()]);
  });

  it('delivers to loopback receivers, by address and by name', async () => {
    const byAddress = await deliverTo(t, `${receiver.url}/by-address`);
    assert.equal(byAddress.status, 'delivered', JSON.stringify(byAddress));
    const byName = await deliverTo(t, `http://localhost:${receiver.port}/by-name`);
    assert.equal(byName.status, 'delivered', JSON.stringify(byName));
    await eventually('both deliveries to arrive', () => receiver.requests.length === 2);
    assert.deepEqual(
      receiver.requests.map((r) => r.url),
      ['/by-address', '/by-name'],
    );
  });

  it('still refuses private and metadata addresses before connecting', async () => {
    assertRefused(await deliverTo(t, 'http://10.0.0.1/'), '10.0.0.1');
    assertRefused(await deliverTo(t, 'http://192.168.1.1/'), '192.168.1.1');
    assertRefused(await deliverTo(t, 'http://169.254.169.254/latest/meta-data'), 'metadata');
    assertNeverConnected(t, spy.attempts, ['10.0.0.1', '192.168.1.1', '169.254.169.254']);
  });

  it('does not follow a redirect: the 302 is the answer, logged as a failure', async () => {
    const entry = await deliverTo(t, `${redirecting.url}/moved`);
    assert.equal(entry.status, 'failed', JSON.stringify(entry));
    assert.equal(entry.response_status, 302);
    assert.equal(entry.error, 'HTTP 302');
    assert.equal(entry.attempts, 1);
    assert.equal(redirecting.requests.length, 1);
    // A follower would have gone on within the attempt, which is over; and nothing else is on its way.
    await dispatcherIdle(t);
    assert.equal(elsewhere.connections(), 0);
    assert.deepEqual(elsewhere.requests, []);
    assert.deepEqual(
      spy.attempts.filter((a) => a.port === elsewhere.port),
      [],
    );
  });
});

describe('no DNS oracle: every refused or unresolvable destination reads the same (--production)', () => {
  let t: TestServer;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    t = await startServer({ flags: ['--production', ...FLAGS], seed, logger });
  });
  after(() => t.close());

  it('a name that does not exist, one that resolves to loopback and a literal private address: one answer', async () => {
    const destinations = [
      ['http://no-such-name.invalid/hook', 'no-such-name.invalid: ENOTFOUND'],
      ['http://localhost:9/hook', 'localhost: '],
      ['http://10.0.0.1/hook', '10.0.0.1 is special-purpose (private)'],
      ['http://[64:ff9b:1::a00:1]/hook', '64:ff9b:1::a00:1 is special-purpose'],
    ] as const;
    const entries: LogEntry[] = [];
    for (const [url] of destinations) entries.push(await deliverTo(t, url));
    for (const [i, entry] of entries.entries()) assertRefused(entry, destinations[i]?.[0] ?? '');
    // Apart from the id, URL and times, the entries are equal: nothing tells a refusal from a failed lookup.
    const shape = (e: LogEntry) => ({ ...e, id: '', url: '', created_at: '', last_attempt_at: '' });
    for (const entry of entries) assert.deepEqual(shape(entry), shape(entries[0] as LogEntry));
    // The operator's log has the detail, at warn, for each.
    const warnings = lines.filter(
      (l) => l.msg === 'webhook destination refused or not resolved; the log says only that',
    );
    for (const [url, detail] of destinations) {
      const entry = entries[destinations.findIndex(([u]) => u === url)];
      const line = warnings.find((l) => l.delivery === entry?.id);
      assert.ok(line, `a warning for ${url}`);
      assert.equal(line.level, 40);
      assert.ok(String(line.detail).includes(detail), `${url}: ${String(line.detail)}`);
    }
  });
});
