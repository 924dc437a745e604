/**
 * Issue 17 point 6: an anonymous reader of the API port saw `lockcloud_commands_total` move when a
 * door was unlocked. Metrics are served only on a listener of their own (`--metrics-port`, on
 * 127.0.0.1 unless `--metrics-host` says otherwise), off by default, never on the API port.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scryptHasher } from '../../../src/adapters/system/crypto.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createServer, StartupError } from '../../../src/main.ts';
import { LOCK_A, startServer, startTask, type TestServer, waitForTask } from '../../support/server.ts';
import { untilRefused } from './support.ts';

async function apiMetrics(t: TestServer): Promise<{ status: number; text: string }> {
  const res = await t.request('/metrics');
  return { status: res.status, text: await res.text() };
}

describe('metrics are not on the API port', () => {
  it('by default: no metrics listener, and GET /metrics on the API port is 404 with no counter in it', async () => {
    const t = await startServer();
    try {
      assert.equal(t.server.metricsUrl, undefined);
      await waitForTask(t, await startTask(t, LOCK_A, 'unlock'));
      const { status, text } = await apiMetrics(t);
      assert.equal(status, 404);
      assert.doesNotMatch(text, /lockcloud_commands_total|http_request_duration_seconds/);
    } finally {
      await t.close();
    }
  });

  it('with --metrics-port: the API port still answers 404, the metrics listener has them', async () => {
    const t = await startServer({ flags: ['--metrics-port', '0'] });
    try {
      await waitForTask(t, await startTask(t, LOCK_A, 'unlock'));
      assert.equal((await apiMetrics(t)).status, 404);
      const url = t.server.metricsUrl;
      assert.ok(url);
      assert.notEqual(new URL(url).port, new URL(t.url).port);
      const text = await (await fetch(url)).text();
      assert.match(text, /^lockcloud_commands_total\{command="unlock",outcome="success"\} 1$/m);
    } finally {
      await t.close();
    }
  });
});

describe('the metrics listener', () => {
  let t: TestServer;
  let url: string;
  before(async () => {
    t = await startServer({ flags: ['--metrics-port', '0'] });
    url = t.server.metricsUrl ?? '';
  });
  after(() => t.close());

  it('listens on 127.0.0.1 unless --metrics-host says otherwise', () => {
    assert.equal(new URL(url).hostname, '127.0.0.1');
    assert.equal(new URL(url).pathname, '/metrics');
  });

  it('serves GET and HEAD /metrics, uncached; other paths 404, other methods 405', async () => {
    const get = await fetch(url);
    assert.equal(get.status, 200);
    assert.equal(get.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(get.headers.get('cache-control'), 'no-store');
    assert.match(await get.text(), /^process_cpu_user_seconds_total /m);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    assert.equal((await fetch(`${url}?name[]=x`)).status, 200);
    for (const path of ['/', '/healthz', '/metrics/x', '/public/locks']) {
      const res = await fetch(new URL(path, url));
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    const post = await fetch(url, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  it('does not count its own scrapes among the API requests', async () => {
    await (await fetch(url)).text();
    const text = await (await fetch(url)).text();
    assert.doesNotMatch(text, /route="\/metrics"/);
  });
});

describe('the metrics listener starts and stops with the server', () => {
  it('stops listening when the server closes', async () => {
    const t = await startServer({ flags: ['--metrics-port', '0'] });
    const url = t.server.metricsUrl ?? '';
    assert.equal((await fetch(url)).status, 200);
    await t.close();
    await untilRefused(url);
  });

  it('a metrics port already taken fails the start with a StartupError naming it', async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const data = mkdtempSync(join(tmpdir(), 'lockcloud-metrics-'));
    const flags = ['--data', data, '--port', '0', '--mqtt-port', '0', '--log-level', 'silent'];
    const server = await createServer(loadConfig({}, [...flags, '--metrics-port', String(port)]), {
      passwords: scryptHasher({ N: 1024, r: 8, p: 1 }),
    });
    try {
      await assert.rejects(
        server.listen(),
        (error: unknown) => error instanceof StartupError && error.message.includes(`127.0.0.1:${port}`),
      );
      assert.equal(server.metricsUrl, undefined);
    } finally {
      await server.close();
      taken.close();
      rmSync(data, { recursive: true, force: true });
    }
  });
});
