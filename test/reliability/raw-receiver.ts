/**
 * A webhook receiver below HTTP, for faults node:http will not play (test/reliability/webhook-hang):
 * a plain TCP server on 127.0.0.1 that, as told, accepts the connection and never answers, sends the
 * status line and headers and then trickles the body forever, sends headers announcing a body that
 * never comes, or answers 200 properly. It records what arrived on each connection and counts the
 * connections still open, so a test can tell that the sender closed them.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';

export type Mode = 'silent' | 'trickle' | 'stall' | 'ok';

export interface RawReceiver {
  readonly url: string;
  /** The raw bytes received on each connection so far, in order of connection. */
  readonly received: readonly string[];
  /** Connections open now (from the receiver's side). */
  open(): number;
  mode(next: Mode): void;
  close(): Promise<void>;
}

/** The value of a header in a raw request, or undefined. */
export function rawHeader(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0] ?? '';
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

export async function startRawReceiver(initial: Mode): Promise<RawReceiver> {
  let mode = initial;
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const index = received.push('') - 1;
    const modeNow = mode;
    let answered = false;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received[index] += chunk.toString('latin1');
      // Answer (if at all) once the whole head of the request has come.
      if (answered || !(received[index] ?? '').includes('\r\n\r\n')) return;
      answered = true;
      if (modeNow === 'ok') {
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
      } else if (modeNow === 'stall') {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n');
      } else if (modeNow === 'trickle') {
        socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
        const timer = setInterval(() => {
          if (socket.destroyed) {
            clearInterval(timer);
            timers.delete(timer);
          } else socket.write('1\r\n.\r\n');
        }, 50);
        timers.add(timer);
      }
      // silent: reads everything, writes nothing
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    open: () => sockets.size,
    mode(next) {
      mode = next;
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
