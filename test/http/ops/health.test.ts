/**
 * GET /healthz and GET /readyz: liveness checks nothing; readiness checks the database, the MQTT
 * broker and Redis (when the rate limits live there), names what fails, and fails while the server
 * shuts down — when a request on a connection still open is answered 503 with its X-Request-Id.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answer, LOCK_A, OWNER, simLockOk, startServer, type TestServer } from '../../support/server.ts';
import { control, login } from '../v1/helpers.ts';
import { openConnection, untilCommandInFlight, untilRefused, untilServerHasRead } from './support.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A TCP proxy to `target` on a port of its own; close() stops it and cuts its connections. */
async function startProxy(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createNetServer((client) => {
    const upstream = connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  let closed = false;
  return {
    url: `redis://127.0.0.1:${address.port}`,
    reachable: () =>
      new Promise<boolean>((resolve) => {
        const probe = connect(Number(port), hostname, () => {
          probe.destroy();
          resolve(true);
        });
        probe.on('error', () => resolve(false));
      }),
    async close() {
      if (closed) return;
      closed = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}

describe('GET /healthz and GET /readyz', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('GET /healthz answers 200 {"status":"ok"} with an X-Request-Id, uncached', async () => {
    const res = await t.request('/healthz', { headers: { 'x-request-id': 'probe-1' } });
    assert.equal(res.headers.get('x-request-id'), 'probe-1');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await answer(res), { status: 200, body: { status: 'ok' } });
  });

  it('GET /readyz answers 200 with every check ok: the database and the broker', async () => {
    const { status, body } = await answer(await t.request('/readyz'));
    assert.equal(status, 200);
    const { checks, ...rest } = body as { checks: Record<string, { status: string; ms: number }> };
    assert.deepEqual(rest, { status: 'ok' });
    assert.deepEqual(Object.keys(checks).sort(), ['broker', 'database']);
    for (const check of Object.values(checks)) assert.equal(check.status, 'ok');
  });

  it('the operator endpoints are not in the API document', async () => {
    const doc = (await (await t.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal(doc.paths[path], undefined);
  });
});

describe('GET /readyz when a dependency is down', () => {
  it('answers 503 naming the broker once the device link has lost it; /healthz stays 200', async () => {
    const t = await startServer();
    try {
      await t.server.devices.broker?.stop();
      const { status, body } = await answer(await t.request('/readyz'));
      assert.equal(status, 503);
      assert.deepEqual((body as { failing: unknown }).failing, ['broker']);
      assert.equal((body as { status: unknown }).status, 'unavailable');
      const checks = (body as { checks: Record<string, { status: string; error?: string }> }).checks;
      assert.equal(checks.database?.status, 'ok');
      assert.deepEqual({ ...checks.broker, ms: 0 }, { status: 'fail', ms: 0, error: 'failed' });
      assert.equal((await t.request('/healthz')).status, 200);
    } finally {
      await t.close();
    }
  });

  it('checks Redis when the rate limits live there: ok while it answers, degraded (still 200: the server works without it) naming redis once it is gone, within the check timeout', async (ctx) => {
    // The machine's Redis behind a proxy of the test's own, which the test then takes away: the
    // server needs Redis to start (its event bus), and the machine's Redis is never touched.
    const proxy = await startProxy(REDIS_URL);
    if (!(await proxy.reachable())) {
      await proxy.close();
      ctx.skip(`no Redis answers at ${REDIS_URL}`);
      return;
    }
    let t: TestServer | undefined;
    try {
      t = await startServer({
        flags: ['--redis-url', proxy.url, '--redis-prefix', `lc-ops:${randomUUID()}:`],
      });
      const ok = await answer(await t.request('/readyz'));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const { checks } = ok.body as { checks: Record<string, unknown> };
      // Both Redis users: the rate-limit store and the event bus shared with other processes.
      assert.deepEqual(Object.keys(checks).sort(), ['broker', 'database', 'events', 'redis']);

      await proxy.close();
      const started = performance.now();
      const { status, body } = await answer(await t.request('/readyz'));
      assert.ok(performance.now() - started < 1500, 'a check never takes much over its 1 s');
      // Every process shares the Redis: failing readiness would take them all out of rotation while
      // they still serve (the rate limits fall back to memory). Shown, not failed.
      assert.equal(status, 200);
      const { failing, status: overall } = body as { failing: string[]; status: string };
      assert.equal(overall, 'degraded');
      assert.ok(failing.includes('redis'), JSON.stringify(failing));
      assert.ok(
        failing.every((name) => name === 'redis' || name === 'events'),
        JSON.stringify(failing),
      );
    } finally {
      await t?.close();
      await proxy.close();
    }
  });
});

describe('while the server shuts down', () => {
  it('the v1 control in flight gets its 204; /readyz answers 503 "shutting down" and other requests 503 SHUTTING_DOWN, each with its X-Request-Id; idle connections close', async () => {
    const t = await startServer({ flags: ['--no-rate-limit'] });
    let closing: Promise<void> | undefined;
    try {
      await simLockOk(t, LOCK_A, { latency_ms: 1000 });
      const token = await login(t, OWNER);
      const started = performance.now();
      const inFlight = control(t, token, LOCK_A, 'unlock');
      const keepAlive = await openConnection(t.url, '');
      assert.equal((await keepAlive.finish('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n')).status, 200);
      const silent = await openConnection(t.url, '');
      // Connections with a request begun (headers not finished) stay open while others drain.
      const readyz = await openConnection(t.url, 'GET /readyz HTTP/1.1\r\nhost: x\r\n');
      const other = await openConnection(t.url, 'GET /public/locks HTTP/1.1\r\nhost: x\r\n');
      await untilCommandInFlight(t.dataDir);
      await untilServerHasRead(t.url);
      closing = t.close();
      await keepAlive.closed;
      await untilRefused(t.url);
      const ready = await readyz.finish('x-request-id: probe-2\r\n\r\n');
      assert.equal(ready.status, 503);
      assert.equal(ready.headers['x-request-id'], 'probe-2');
      assert.deepEqual(JSON.parse(ready.text), { status: 'shutting down' });
      const refused = await other.finish('x-request-id: late-1\r\n\r\n');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['x-request-id'], 'late-1');
      assert.equal(refused.headers.connection, 'close');
      assert.deepEqual(JSON.parse(refused.text), { error: 'SHUTTING_DOWN' });
      const res = await inFlight;
      assert.equal(res.status, 204);
      assert.ok(performance.now() - started >= 900, 'the control waited for the lock');
      // The silent connection does not hold the close for the 20 s grace once nothing is in flight.
      await silent.closed;
      await closing;
      assert.ok(performance.now() - started < 5000, `closed after ${performance.now() - started} ms`);
    } finally {
      await (closing ?? t.close());
    }
  });

  it('cuts what is still in flight at the end of --shutdown-grace-ms, and closes', async () => {
    const t = await startServer({ flags: ['--no-rate-limit', '--shutdown-grace-ms', '300'] });
    await simLockOk(t, LOCK_A, { latency_ms: 5000 });
    const token = await login(t, OWNER);
    const inFlight = control(t, token, LOCK_A, 'unlock').then(
      (res) => res.status,
      () => 'cut',
    );
    await untilCommandInFlight(t.dataDir);
    const started = performance.now();
    await t.close();
    const took = performance.now() - started;
    assert.ok(took >= 250 && took < 3000, `closed after ${took} ms`);
    assert.equal(await inFlight, 'cut');
  });
});
