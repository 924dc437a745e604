/**
 * The SSRF guard, black-box: with --production a webhook to loopback, a private address, the cloud
 * metadata address, a name that resolves to loopback, or IPv6 loopback is refused before any
 * connection is made, and the refusal is logged. --webhook-allow opens a range; sandbox mode opens
 * loopback; a redirect is the receiver's answer, never followed.
 *
 * Only 127.0.0.1 is ever really connected to: the other addresses are refused before connect(),
 * which the connect spy checks (a test that reached them would fail, not send traffic out and pass).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
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
  eventually,
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

function assertRefused(entry: LogEntry, address: RegExp, what: string): void {
  assert.equal(entry.status, 'failed', `${what}: status`);
  assert.equal(entry.attempts, 1, `${what}: one attempt`);
  assert.equal(entry.response_status, null, `${what}: no answer`);
  assert.match(entry.error ?? '', /is not allowed/, `${what}: error`);
  assert.match(entry.error ?? '', address, `${what}: the error names the address`);
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
    const cases: [string, RegExp][] = [
      [`http://127.0.0.1:${receiver.port}/hook`, /address 127\.0\.0\.1 /],
      ['http://10.0.0.1/', /address 10\.0\.0\.1 /],
      ['http://169.254.169.254/latest/meta-data', /address 169\.254\.169\.254 /],
      [`http://localhost:${receiver.port}/hook`, /address (127\.0\.0\.1|::1) /],
      [`http://[::1]:${receiver.port}/hook`, /address ::1 /],
      [`http://[::ffff:127.0.0.1]:${receiver.port}/hook`, /address ::ffff:7f00:1 /],
      [`https://127.0.0.1:${receiver.port}/hook`, /address 127\.0\.0\.1 /],
    ];
    for (const [url, address] of cases) {
      assertRefused(await deliverTo(t, url), address, url);
    }
    assert.equal(receiver.connections(), 0, 'the receiver was never connected to');
    assert.deepEqual(receiver.requests, []);
    assertNeverConnected(t, spy.attempts, [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '::1',
      '::ffff:127.0.0.1',
    ]);
    // The name was looked up (the spy saw connect() asked for it) but refused on its address.
    const toReceiver = spy.attempts.filter((a) => a.port === receiver.port);
    assert.deepEqual(toReceiver, [{ host: 'localhost', port: receiver.port, connectedTo: undefined }]);
  });

  it('refuses the delivery of a real state change the same way', async () => {
    await putWebhook(t, { url: 'http://10.0.0.1/hook/{device_id}/{state}', method: 'POST' });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    let entry: LogEntry | undefined;
    for (let i = 0; i < 500 && entry?.status !== 'failed'; i++) {
      const res = await t.request('/ext/webhook/deliveries?limit=1', { key: OWNER_KEY });
      [entry] = (await res.json()) as LogEntry[];
      if (entry?.status !== 'failed') await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(entry);
    assert.equal(entry.event, 'lock.state_changed');
    assert.equal(entry.url, `http://10.0.0.1/hook/${LOCK_A}/unlocked`);
    assertRefused(entry, /address 10\.0\.0\.1 /, 'a real change');
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
    assertRefused(await deliverTo(t, 'http://10.0.0.1/'), /address 10\.0\.0\.1 /, '10.0.0.1');
    assertRefused(
      await deliverTo(t, 'http://169.254.169.254/latest/meta-data'),
      /address 169\.254\.169\.254 /,
      'metadata',
    );
    assertRefused(await deliverTo(t, `http://[::1]:${receiver.port}/`), /address ::1 /, '::1');
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
    assertRefused(await deliverTo(t, 'http://10.0.0.1/'), /address 10\.0\.0\.1 /, '10.0.0.1');
    assertRefused(await deliverTo(t, 'http://192.168.1.1/'), /address 192\.168\.1\.1 /, '192.168.1.1');
    assertRefused(
      await deliverTo(t, 'http://169.254.169.254/latest/meta-data'),
      /address 169\.254\.169\.254 /,
      'metadata',
    );
    assertNeverConnected(t, spy.attempts, ['10.0.0.1', '192.168.1.1', '169.254.169.254']);
  });

  it('does not follow a redirect: the 302 is the answer, logged as a failure', async () => {
    const entry = await deliverTo(t, `${redirecting.url}/moved`);
    assert.equal(entry.status, 'failed', JSON.stringify(entry));
    assert.equal(entry.response_status, 302);
    assert.equal(entry.error, 'HTTP 302');
    assert.equal(entry.attempts, 1);
    assert.equal(redirecting.requests.length, 1);
    // Give a follower every chance to show itself before checking the target stayed untouched.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(elsewhere.connections(), 0);
    assert.deepEqual(elsewhere.requests, []);
    assert.deepEqual(
      spy.attempts.filter((a) => a.port === elsewhere.port),
      [],
    );
  });
});
