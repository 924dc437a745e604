/**
 * events.stream() against a tiny server of the test's own that speaks the stream's wire format
 * (a real node:http server on a random port): the SSE parser, resuming with Last-Event-ID after the
 * server's close and after a connection cut mid-event, refusals as typed errors without a retry, a
 * wait the server asks for, a silent connection dropped, and stopping by `break` or a signal.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import {
  BadParamsError,
  LockcloudClient,
  type LockcloudEvent,
  UnauthorizedError,
} from '../../sdk/src/index.ts';
import { SseParser } from '../../sdk/src/sse.ts';

const KEY = 'stream-test-key';
const event = (n: number): LockcloudEvent => ({
  id: `evt_${n.toString(16).padStart(28, '0')}`,
  type: 'lock.unlocked',
  occurred_at: '2026-11-26T14:03:11.201Z',
  device_id: '00000000-0000-4000-8000-00000000000a',
  actor: { kind: 'device' },
  method: 'manual',
  task_id: null,
  data: {},
});
const frame = (e: LockcloudEvent) => `id: ${e.id}\nevent: lock_event\ndata: ${JSON.stringify(e)}\n\n`;
const close = (reason: string, last: string | null) =>
  `event: close\ndata: ${JSON.stringify({ reason, last_event_id: last })}\n\n`;

interface Seen {
  readonly url: string;
  readonly lastEventId: string | undefined;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
}

/** A server whose nth connection (from 0) is answered by `handlers[n]` (the last one after that). */
async function sseServer(
  handlers: ((req: IncomingMessage, res: ServerResponse) => void)[],
): Promise<{ url: string; seen: Seen[]; closed: number[]; server: Server }> {
  const seen: Seen[] = [];
  const closed: number[] = [];
  const server = createServer((req, res) => {
    const n = seen.length;
    seen.push({
      url: req.url ?? '',
      lastEventId: req.headers['last-event-id'] as string | undefined,
      authorization: req.headers.authorization,
      accept: req.headers.accept,
    });
    res.on('close', () => closed.push(n));
    (handlers[n] ?? handlers.at(-1))?.(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}`, seen, closed, server };
}
const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

const head = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  res.write('retry: 5\n\n');
};
const client = (url: string) => new LockcloudClient({ baseUrl: url, apiKey: KEY });

async function take(stream: AsyncIterable<LockcloudEvent>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of stream) {
    ids.push(e.id);
    if (ids.length === n) break;
  }
  return ids;
}

describe('SseParser', () => {
  it('reads messages cut anywhere, with CRLF, CR or LF, comments, several data lines and retry', () => {
    const text =
      'retry: 3000\r\n\r\n: heartbeat\n\nid: 1\nevent: lock_event\ndata: {"a":\ndata: 1}\n\nid: 2\rdata:x\r\r';
    // Every cut of the text gives the same messages.
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const got = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      assert.deepEqual(
        got,
        [
          { event: '', data: '', retry: 3000 },
          { event: 'lock_event', data: '{"a":\n1}', id: '1', retry: undefined },
          { event: 'message', data: 'x', id: '2', retry: undefined },
        ],
        `cut at ${cut}`,
      );
    }
  });

  it('keeps a message without its blank line for the next chunk, and ignores unknown fields', () => {
    const p = new SseParser();
    assert.deepEqual(p.feed('event: close\nfoo: bar\ndata: {}\n'), []);
    assert.deepEqual(p.feed('\n'), [{ event: 'close', data: '{}', id: undefined, retry: undefined }]);
  });
});

describe('events.stream()', () => {
  it('sends the key, the filters and lastEventId; resumes after the server closes for a reason', async () => {
    const s = await sseServer([
      (_req, res) => {
        head(res);
        res.write(frame(event(1)) + frame(event(2)));
        res.end(close('too_slow', event(2).id));
      },
      (_req, res) => {
        head(res);
        res.write(frame(event(3)));
        res.end(close('shutting_down', event(3).id));
      },
      (_req, res) => {
        head(res);
        res.write(frame(event(4)));
      },
    ]);
    const reconnects: unknown[] = [];
    const stream = client(s.url).events.stream({
      deviceId: 'lock-a',
      type: 'lock.',
      lastEventId: event(0).id,
      onReconnect: ({ error, waitMs }) => {
        assert.ok(waitMs >= 0 && waitMs <= 5, `${waitMs}: the server's retry, jittered`);
        reconnects.push(error);
      },
    });
    assert.deepEqual(
      await take(stream, 4),
      [1, 2, 3, 4].map((n) => event(n).id),
    );
    assert.deepEqual(
      s.seen.map((x) => x.lastEventId),
      [event(0).id, event(2).id, event(3).id],
    );
    assert.deepEqual(reconnects, [undefined, undefined], 'the server ended each answer');
    for (const x of s.seen) {
      assert.equal(x.url, '/ext/events/stream?device_id=lock-a&type=lock.');
      assert.equal(x.authorization, KEY);
      assert.equal(x.accept, 'text/event-stream');
    }
    // `break` ended the last connection.
    await waitFor(() => s.closed.includes(2));
  });

  it('resumes after a connection cut mid-event, from the last whole event it yielded', async () => {
    const s = await sseServer([
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
        // Half of the next event, then the connection is gone.
        res.write(frame(event(2)).slice(0, 40), () => res.socket?.destroy());
      },
      (_req, res) => {
        head(res);
        res.write(frame(event(2)) + frame(event(3)));
      },
    ]);
    assert.deepEqual(
      await take(client(s.url).events.stream(), 3),
      [1, 2, 3].map((n) => event(n).id),
    );
    assert.deepEqual(
      s.seen.map((x) => x.lastEventId),
      [undefined, event(1).id],
    );
  });

  it('a refused key or filter is its typed error, not tried again', async () => {
    const unauthorized = await sseServer([
      (_req, res) =>
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"UNAUTHORIZED"}'),
    ]);
    await assert.rejects(take(client(unauthorized.url).events.stream(), 1), UnauthorizedError);
    assert.equal(unauthorized.seen.length, 1);
    const bad = await sseServer([
      (_req, res) =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":"BAD_PARAMS","message":"last_event_id: unknown event"}'),
    ]);
    await assert.rejects(take(client(bad.url).events.stream({ lastEventId: 'evt_x' }), 1), (e) => {
      assert.ok(e instanceof BadParamsError);
      assert.match(e.message, /last_event_id: unknown event/);
      return true;
    });
    assert.equal(bad.seen.length, 1);
  });

  it("the server's close for `unauthorized` (a deleted key) is UnauthorizedError", async () => {
    const s = await sseServer([
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
        res.end(close('unauthorized', event(1).id));
      },
    ]);
    const got: string[] = [];
    await assert.rejects(async () => {
      for await (const e of client(s.url).events.stream()) got.push(e.id);
    }, UnauthorizedError);
    assert.deepEqual(got, [event(1).id]);
    assert.equal(s.seen.length, 1);
  });

  it('an access token refused, on connecting or in mid-stream, is refreshed and the stream resumed', async () => {
    const s = await sseServer([
      (_req, res) =>
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"UNAUTHORIZED"}'),
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
        res.end(close('unauthorized', event(1).id));
      },
      (_req, res) => {
        head(res);
        res.write(frame(event(2)));
      },
    ]);
    let n = 0;
    const oauthClient = new LockcloudClient({
      baseUrl: s.url,
      accessToken: 'lco_0',
      refreshAccessToken: async () => `lco_${++n}`,
    });
    assert.deepEqual(await take(oauthClient.events.stream({ reconnectMs: 5 }), 2), [
      event(1).id,
      event(2).id,
    ]);
    assert.deepEqual(
      s.seen.map((x) => [x.authorization, x.lastEventId]),
      [
        ['Bearer lco_0', undefined],
        ['Bearer lco_1', undefined],
        ['Bearer lco_2', event(1).id],
      ],
    );
  });

  it('a refresher that fails ends the stream with its error, not tried again', async () => {
    const s = await sseServer([
      (_req, res) =>
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"UNAUTHORIZED"}'),
    ]);
    const failing = new LockcloudClient({
      baseUrl: s.url,
      accessToken: 'lco_0',
      refreshAccessToken: async () => {
        throw new Error('refresh token revoked');
      },
    });
    await assert.rejects(take(failing.events.stream({ reconnectMs: 5 }), 1), /refresh token revoked/);
    assert.equal(s.seen.length, 1);
  });

  it('waits as a 503 asks, then connects again; a refused connection is tried again too', async () => {
    const s = await sseServer([
      (_req, res) =>
        res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":"X"}'),
      // No answer at all: the connection reset.
      (req) => req.socket.destroy(),
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
      },
    ]);
    assert.deepEqual(
      await take(new LockcloudClient({ baseUrl: s.url, apiKey: KEY }).events.stream({ reconnectMs: 5 }), 1),
      [event(1).id],
    );
    assert.equal(s.seen.length, 3);
  });

  it('drops a connection silent past idleTimeoutMs and makes it again', async () => {
    const s = await sseServer([
      (_req, res) => head(res),
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
      },
    ]);
    assert.deepEqual(await take(client(s.url).events.stream({ idleTimeoutMs: 50 }), 1), [event(1).id]);
    assert.equal(s.seen.length, 2);
    await waitFor(() => s.closed.includes(0));
  });

  it('an AbortSignal ends the iteration without an error and closes the connection', async () => {
    const s = await sseServer([
      (_req, res) => {
        head(res);
        res.write(frame(event(1)));
      },
    ]);
    const stop = new AbortController();
    const got: string[] = [];
    for await (const e of client(s.url).events.stream({ signal: stop.signal })) {
      got.push(e.id);
      stop.abort();
    }
    assert.deepEqual(got, [event(1).id]);
    await waitFor(() => s.closed.includes(0));
  });
});

/** Until the server saw what the client did (a closed connection is seen a moment later). */
async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check());
}
