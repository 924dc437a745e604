/**
 * Prometheus metrics on a listener of their own (`--metrics-port`, `--metrics-host`), never on the
 * API's port: the counters tell who unlocked what and when (a stranger watched
 * `lockcloud_commands_total{command="unlock"}` move), so they are for the operator's network only.
 * A bare node:http server: one route, no API surface, no hooks of the API's on it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpMetrics } from './ops.ts';

export interface MetricsListener {
  /** Where to scrape: `http://host:port/metrics`. */
  readonly url: string;
  /** Stops listening and cuts the connections left (a scraper's keep-alive). */
  close(): Promise<void>;
}

export interface MetricsListenerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly metrics: Pick<HttpMetrics, 'scrape'>;
  /** A scrape that failed: the reason goes to the log, the answer is a bare 500. */
  readonly onError: (error: unknown) => void;
}

const PATH = '/metrics';

function answer(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export async function listenMetrics(options: MetricsListenerOptions): Promise<MetricsListener> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PATH)
      return answer(res, 404, { 'content-type': 'text/plain' }, 'not found: metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answer(res, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'method not allowed\n');
    try {
      const { contentType, body } = await options.metrics.scrape();
      // Node sends no body for HEAD.
      answer(res, 200, { 'content-type': contentType }, body);
    } catch (error) {
      options.onError(error);
      answer(res, 500, { 'content-type': 'text/plain' }, 'scrape failed\n');
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}${PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
