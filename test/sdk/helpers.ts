/**
 * Helpers of the SDK tests: a client on a live server, a fetch that counts requests, a tiny webhook
 * receiver on 127.0.0.1 that keeps the raw bytes of each message.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClientOptions, LockcloudClient } from '../../sdk/src/index.ts';
import { eventually } from '../support/eventually.ts';
import { OWNER_KEY, type TestServer } from '../support/server.ts';

/** A client of the owner's key (or of `apiKey`), with these options. */
export function client(
  t: TestServer,
  options: Partial<ClientOptions> & { readonly apiKey?: string } = {},
): LockcloudClient {
  return new LockcloudClient({ baseUrl: t.url, apiKey: OWNER_KEY, ...options });
}

/** A fetch that records the path of every request it sends. */
export function countingFetch(): { fetch: typeof fetch; paths: string[]; times: number[] } {
  const paths: string[] = [];
  const times: number[] = [];
  return {
    paths,
    times,
    fetch: (input, init) => {
      paths.push(new URL(String(input)).pathname);
      times.push(performance.now());
      return fetch(input, init);
    },
  };
}

/** A fetch that answers every request with this status, body and headers (for answers hard to provoke). */
export function cannedFetch(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): typeof fetch {
  return async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1', ...headers },
    });
}

export interface Delivery {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface Receiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  waitFor(count: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    async waitFor(count) {
      await eventually(`${count} deliveries (${deliveries.length} so far)`, () => deliveries.length >= count);
      return deliveries;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
