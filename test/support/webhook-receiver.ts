/**
 * A real webhook receiver for the black-box webhook tests (test/http/webhooks, test/http/ext):
 * node:http on 127.0.0.1, a random port. It records every request (method, url, headers, body,
 * arrival time), counts TCP connections, and answers as it is told: a status, a Retry-After, other
 * headers (a redirect's Location), or nothing at all for a while (a hanging receiver).
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** 0-based, in arrival order (the moment the whole request had been read). */
  readonly index: number;
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Date.now() when the request had arrived in full. */
  readonly arrivedAt: number;
  /** performance.now() at the same moment, for intervals. */
  readonly arrivedAtMono: number;
}

export interface Reply {
  /** 200 unless told. */
  readonly status?: number;
  /** The Retry-After header, verbatim. */
  readonly retryAfter?: string;
  /** More headers to answer with (e.g. a redirect's Location). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Hold the answer this long (ms) before sending it; the sender may give up first. */
  readonly hangMs?: number;
}

export type Responder = (request: Received) => Reply;

export interface Receiver {
  /** http://127.0.0.1:<port>, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  /** Requests whose answer is still held (hanging) and whose connection is still open. */
  readonly open: number;
  /** The most requests held open at one time. */
  readonly maxOpen: number;
  /** How the next requests are answered (replaces the earlier rule). */
  respond(rule: Reply | Responder): void;
  /** Resolves with the requests once at least `count` have arrived; rejects after `timeoutMs` of real time. */
  waitFor(count: number, timeoutMs?: number): Promise<readonly Received[]>;
  /** Resolves once no answer is held open any more. */
  waitNoneOpen(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(rule: Reply | Responder = {}): Promise<Receiver> {
  const requests: Received[] = [];
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  let responder: Responder = typeof rule === 'function' ? rule : () => rule;
  let maxOpen = 0;
  let connections = 0;
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        index: requests.length,
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        arrivedAt: Date.now(),
        arrivedAtMono: performance.now(),
      };
      requests.push(received);
      const reply = responder(received);
      const answer = (): void => {
        held.delete(res);
        if (res.destroyed) return;
        const headers: Record<string, string> = { 'content-type': 'text/plain', ...reply.headers };
        if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
        res.writeHead(reply.status ?? 200, headers).end('ok');
        notify();
      };
      if (reply.hangMs !== undefined && reply.hangMs > 0) {
        held.add(res);
        maxOpen = Math.max(maxOpen, held.size);
        // The sender giving up closes the connection: the request is no longer held.
        res.on('close', () => {
          if (held.delete(res)) notify();
        });
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer();
        }, reply.hangMs);
        timers.add(timer);
      } else {
        answer();
      }
      notify();
    });
  });
  server.on('connection', () => {
    connections++;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  function waitUntil(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!done()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `receiver: still waiting for ${what} after ${timeoutMs} ms; got ${requests.length}: ${requests
              .map((r) => `${r.method} ${r.url}`)
              .join(', ')}`,
          ),
        );
      }, timeoutMs);
      waiters.add(check);
    });
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    get open() {
      return held.size;
    },
    get maxOpen() {
      return maxOpen;
    },
    respond(next) {
      responder = typeof next === 'function' ? next : () => next;
    },
    async waitFor(count, timeoutMs = 10_000) {
      await waitUntil(`${count} request(s)`, () => requests.length >= count, timeoutMs);
      return requests;
    },
    waitNoneOpen(timeoutMs = 15_000) {
      return waitUntil('no held answer', () => held.size === 0, timeoutMs);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
