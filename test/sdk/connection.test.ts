/**
 * The SDK when no answer comes, against real sockets on 127.0.0.1: a closed port (connection
 * refused), a server that accepts and never answers (the client's timeout), one that sends its
 * headers and stalls (the timeout covers the body), one that drops the connection. And the headers
 * every request carries (User-Agent).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  ConnectionError,
  LockcloudClient,
  LockcloudError,
  LockcloudSandboxClient,
  LockcloudV1Client,
  RequestTimeoutError,
} from '../../sdk/src/index.ts';
import { OWNER_KEY } from '../support/server.ts';

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

/** A port that was just free: bound, then released. */
async function closedPort(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** A TCP server that does `onConnection` to each socket, and tracks them to close them. */
async function rawServer(
  onConnection: (socket: Socket) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  const url = await listen(server);
  return {
    url,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('sdk: no answer', () => {
  let refused: string;
  let silent: Awaited<ReturnType<typeof rawServer>>;
  let stalling: Awaited<ReturnType<typeof rawServer>>;
  let dropping: Awaited<ReturnType<typeof rawServer>>;
  let cut: Awaited<ReturnType<typeof rawServer>>;
  before(async () => {
    refused = await closedPort();
    silent = await rawServer(() => {});
    // Headers and part of a JSON body, then nothing.
    stalling = await rawServer((socket) => {
      socket.once('data', () =>
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[{"device_id":',
        ),
      );
    });
    // Reads the request, then closes the connection without a byte of answer.
    dropping = await rawServer((socket) => {
      socket.once('data', () => socket.destroy());
    });
    // Headers and part of the body, then the connection is reset.
    cut = await rawServer((socket) => {
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[{"device_id":',
        );
        setTimeout(() => socket.resetAndDestroy(), 20);
      });
    });
  });
  after(async () => {
    await silent.close();
    await stalling.close();
    await dropping.close();
    await cut.close();
  });

  it('a refused connection rejects with ConnectionError: code ECONNREFUSED, the cause, the request', async () => {
    const err = await new LockcloudClient({ baseUrl: refused, apiKey: OWNER_KEY })
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionError, String(err));
    assert.ok(!(err instanceof LockcloudError) && !(err instanceof RequestTimeoutError));
    assert.equal(err.name, 'ConnectionError');
    assert.equal(err.code, 'ECONNREFUSED');
    assert.equal(err.method, 'GET');
    assert.equal(err.url, `${refused}/public/locks`);
    assert.ok(err.cause instanceof Error, 'the error fetch threw is the cause');
    assert.match(err.message, /^no answer from GET http:\/\/127\.0\.0\.1:\d+\/public\/locks: .*ECONNREFUSED/);
  });

  it('every client: v3 and /ext, v1 login and calls, the sandbox', async () => {
    const c = new LockcloudClient({ baseUrl: refused, apiKey: OWNER_KEY });
    for (const call of [
      () => c.unlock('6f1c0000-0000-4000-8000-000000000000'),
      () => c.webhook.set({ url: 'http://127.0.0.1/hook' }),
      () => c.webhook.deliveries(),
      () => LockcloudV1Client.login(refused, 'a@example.com', 'pw'),
      () => new LockcloudV1Client({ baseUrl: refused, token: 't' }).control('x', 'lock'),
      () => new LockcloudSandboxClient({ baseUrl: refused }).reset(),
    ]) {
      const err = await call().catch((e: unknown) => e);
      assert.ok(err instanceof ConnectionError && err.code === 'ECONNREFUSED', String(err));
    }
  });

  it('a connection dropped before the answer is a ConnectionError too; retry does not resend it', async () => {
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    const c = new LockcloudClient({ baseUrl: dropping.url, apiKey: OWNER_KEY, retry: true, fetch: counting });
    const err = await c.lock('6f1c0000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionError && !(err instanceof RequestTimeoutError), String(err));
    assert.equal(err.method, 'POST');
    assert.ok(err.code !== undefined, `a code from the causes: ${String(err.cause)}`);
    assert.equal(attempts, 1);
  });

  it('a connection reset in the middle of the answer’s body is a ConnectionError', async () => {
    const err = await new LockcloudClient({ baseUrl: cut.url, apiKey: OWNER_KEY })
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionError && !(err instanceof RequestTimeoutError), String(err));
    assert.ok(err.code !== undefined, `a code from the causes: ${String(err.cause)}`);
    assert.match(err.message, /^no answer from GET /);
  });

  // A test's own limit, so that a timeout that never fires fails here instead of hanging the run.
  const limit = { timeout: 10_000 };

  it('a server that never answers: RequestTimeoutError after the client’s timeoutMs', limit, async () => {
    const c = new LockcloudClient({ baseUrl: silent.url, apiKey: OWNER_KEY, timeoutMs: 200 });
    const err = await c.listLocks().catch((e: unknown) => e);
    assert.ok(err instanceof RequestTimeoutError, String(err));
    assert.ok(err instanceof ConnectionError, 'a timeout is a ConnectionError');
    assert.equal(err.name, 'RequestTimeoutError');
    assert.equal(err.timeoutMs, 200);
    assert.equal(err.url, `${silent.url}/public/locks`);
    assert.match(err.message, /within 200 ms/);
    const v1 = new LockcloudV1Client({ baseUrl: silent.url, token: 't', timeoutMs: 200 });
    await assert.rejects(v1.getLock('x'), RequestTimeoutError);
    const sandbox = new LockcloudSandboxClient({ baseUrl: silent.url, timeoutMs: 200 });
    await assert.rejects(sandbox.getClock(), RequestTimeoutError);
  });

  it('the timeout covers the body: headers then silence is a RequestTimeoutError', limit, async () => {
    const c = new LockcloudClient({ baseUrl: stalling.url, apiKey: OWNER_KEY, timeoutMs: 200 });
    await assert.rejects(c.listLocks(), RequestTimeoutError);
  });

  it('the caller’s signal wins over the timeout: its reason, not a RequestTimeoutError', limit, async () => {
    const c = new LockcloudClient({ baseUrl: silent.url, apiKey: OWNER_KEY, timeoutMs: 60_000 });
    const reason = new Error('stop');
    const controller = new AbortController();
    const pending = c.listLocks({ signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(reason), 50);
    assert.equal(await pending, reason);
    await assert.rejects(c.listLocks({ signal: AbortSignal.abort(reason) }), (e) => e === reason);
  });

  it('refuses a base URL that is not an absolute http(s) URL, and a timeout that is not a positive number', () => {
    for (const baseUrl of ['', 'localhost:8080', 'ftp://127.0.0.1', 'http://127.0.0.1/?x=1', 'http://h/#f']) {
      assert.throws(() => new LockcloudClient({ baseUrl, apiKey: OWNER_KEY }), TypeError, baseUrl);
      assert.throws(() => new LockcloudSandboxClient({ baseUrl }), TypeError, baseUrl);
    }
    for (const timeoutMs of [0, -1, Number.NaN, '5000' as unknown as number]) {
      assert.throws(
        () => new LockcloudClient({ baseUrl: refused, apiKey: OWNER_KEY, timeoutMs }),
        TypeError,
        String(timeoutMs),
      );
    }
    new LockcloudClient({ baseUrl: refused, apiKey: OWNER_KEY, timeoutMs: Number.POSITIVE_INFINITY });
  });
});

describe('sdk: what every request carries', () => {
  let seen: IncomingHttpHeaders[];
  let url: string;
  let close: () => Promise<void>;
  before(async () => {
    seen = [];
    const server = createHttpServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    url = `http://127.0.0.1:${address.port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
  });
  after(() => close());

  it('User-Agent: lockcloud-sdk/<sdk/package.json version> node/<node version>, from every client', async () => {
    const { version } = JSON.parse(readFileSync('sdk/package.json', 'utf8')) as { version: string };
    await new LockcloudClient({ baseUrl: url, apiKey: OWNER_KEY }).listLocks();
    await new LockcloudClient({ baseUrl: url, apiKey: OWNER_KEY }).webhook.deliveries();
    await new LockcloudV1Client({ baseUrl: url, token: 't' }).getLock('x');
    await new LockcloudSandboxClient({ baseUrl: url }).mailbox('a@example.com');
    assert.equal(seen.length, 4);
    for (const headers of seen) {
      assert.equal(headers['user-agent'], `lockcloud-sdk/${version} node/${process.versions.node}`);
      assert.equal(headers.accept, 'application/json');
    }
  });
});
