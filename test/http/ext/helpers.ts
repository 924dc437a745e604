/**
 * Shared by the /ext black-box tests: a webhook receiver on 127.0.0.1 that counts connections as well
 * as requests, a spy on every outgoing TCP connect of this process, and readers of the delivery log.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Socket } from 'node:net';
import { answer, OWNER_KEY, type TestServer } from '../../support/server.ts';

export const FLAGS = ['--no-rate-limit'] as const;

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly requests: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 only; `reply` decides the answer (200 by default). */
export async function startReceiver(
  reply: (req: Received) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: Received[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const { status, headers } = reply(received);
      res.writeHead(status, headers).end();
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ConnectAttempt {
  /** The host connect() was asked for: an address, or a name still to be resolved. */
  readonly host: string;
  readonly port: number;
  /** The peer address once a TCP connection was made; undefined while (or if) none was. */
  connectedTo: string | undefined;
}

/**
 * Records every net.Socket connect() of this process (the server under test runs in it), and the
 * address each one really reached. Restore with the returned function.
 */
export function spyOnConnects(): { attempts: ConnectAttempt[]; restore: () => void } {
  const attempts: ConnectAttempt[] = [];
  const original = Socket.prototype.connect;
  const spied = function (this: Socket, ...args: unknown[]): Socket {
    const [first, second] = args;
    let host = 'localhost';
    let port = 0;
    if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
      const options = first as { host?: string; port?: number | string; path?: string };
      if (options.path === undefined) {
        host = options.host ?? 'localhost';
        port = Number(options.port);
      } else host = `unix:${options.path}`;
    } else if (Array.isArray(first)) {
      // Node's internal normalized form: [options, callback].
      const options = (first[0] ?? {}) as { host?: string; port?: number | string };
      host = options.host ?? 'localhost';
      port = Number(options.port);
    } else {
      port = Number(first);
      if (typeof second === 'string') host = second;
    }
    const attempt: ConnectAttempt = { host, port, connectedTo: undefined };
    attempts.push(attempt);
    this.once('connect', () => {
      attempt.connectedTo = this.remoteAddress;
    });
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  };
  Socket.prototype.connect = spied as typeof Socket.prototype.connect;
  return {
    attempts,
    restore: () => {
      Socket.prototype.connect = original;
    },
  };
}

/** A delivery log entry as GET /ext/webhook/deliveries answers it. */
export interface LogEntry {
  readonly id: string;
  readonly event: string;
  readonly device_id: string;
  readonly url: string;
  readonly method: string;
  readonly status: 'pending' | 'sending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly response_status: number | null;
  readonly error: string | null;
  readonly latency_ms: number | null;
  readonly created_at: string;
  readonly last_attempt_at: string | null;
  readonly next_attempt_at: string | null;
}

/** PUT /ext/webhook, which must succeed; the answer's body. */
export async function putWebhook(
  t: TestServer,
  body: Record<string, unknown>,
  key = OWNER_KEY,
): Promise<Record<string, unknown>> {
  const res = await answer(await t.request('/ext/webhook', { method: 'PUT', key, json: body }));
  if (res.status !== 200)
    throw new Error(`PUT /ext/webhook refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

/** POST /ext/webhook/test, which must be accepted; the new delivery's id. */
export async function sendTestEvent(t: TestServer, key = OWNER_KEY): Promise<string> {
  const res = await answer(await t.request('/ext/webhook/test', { method: 'POST', key }));
  const id = (res.body as { delivery_id?: unknown } | null)?.delivery_id;
  if (res.status !== 202 || typeof id !== 'string')
    throw new Error(`POST /ext/webhook/test: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

export async function deliveryLog(t: TestServer, key = OWNER_KEY): Promise<LogEntry[]> {
  const res = await answer(await t.request('/ext/webhook/deliveries?limit=500', { key }));
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as LogEntry[];
}

/** Polls the log until the delivery has its outcome (delivered or failed); answers its entry. */
export async function waitForOutcome(t: TestServer, id: string, key = OWNER_KEY): Promise<LogEntry> {
  let last: LogEntry | undefined;
  for (let i = 0; i < 500; i++) {
    last = (await deliveryLog(t, key)).find((e) => e.id === id);
    if (last && (last.status === 'delivered' || last.status === 'failed')) return last;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`delivery ${id} has no outcome after 500 polls: ${JSON.stringify(last)}`);
}

/** Polls until `probe` holds; for what a receiver sees after the server answered. */
export async function eventually(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`still waiting for ${what}`);
}
