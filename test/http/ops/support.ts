/**
 * A raw connection whose request is sent in two parts, for what happens at shutdown: a connection
 * that has begun a request is not idle, so the server keeps it open while it drains, and the rest
 * of the request reaches a server that is closing.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { BetterSqlite3 } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { SQLITE_FILE_NAME } from '../../../src/adapters/stores/sqlite/open.ts';
import { eventually } from '../../support/eventually.ts';
import { httpMessage, rawRequest } from '../../support/raw-http.ts';

export interface RawAnswer {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

export interface OpenConnection {
  readonly socket: Socket;
  /** Resolves when the server (or anyone) closes the connection. */
  readonly closed: Promise<void>;
  /** Sends the rest of the request and resolves with the answer (read up to its Content-Length). */
  finish(rest: string): Promise<RawAnswer>;
}

function parse(data: Buffer): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = data.subarray(end + 4);
  const length = Number(headers['content-length'] ?? 0);
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    text: body.subarray(0, length).toString('utf8'),
  };
}

/** Connects and sends `head` (part of a request, or nothing). */
export async function openConnection(baseUrl: string, head: string): Promise<OpenConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  if (head !== '') socket.write(head);
  return {
    socket,
    closed,
    finish(rest) {
      socket.write(rest);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
        const check = (): void => {
          const parsed = parse(Buffer.concat(chunks));
          if (parsed === undefined) return;
          clearTimeout(timer);
          resolve(parsed);
        };
        socket.on('data', check);
        socket.once('close', () => {
          check();
          clearTimeout(timer);
          reject(new Error(`closed without a whole answer: ${Buffer.concat(chunks).toString('latin1')}`));
        });
        check();
      });
    },
  };
}

/** Resolves once a new connection to the server is refused: it has stopped listening. */
export async function untilRefused(baseUrl: string, timeoutMs = 5000): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  await eventually(
    `${baseUrl} to refuse connections`,
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(Number(port), hostname);
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      }),
    timeoutMs,
  );
}

/**
 * Resolves once a command is in flight on the server whose SQLite data directory this is: a task is
 * processing (a v1 control waiting for its lock, say).
 */
export function untilCommandInFlight(dataDir: string): Promise<true> {
  return eventually('a command in flight', () => {
    const db = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'processing'").get() as {
        n: number;
      };
      return row.n > 0;
    } finally {
      db.close();
    }
  });
}

/**
 * Resolves once the server has read what was written to it before on other connections (the start
 * of a request, say): it answers a whole request on a new connection. The server reads its sockets
 * on one event loop in the order their data arrived, and loopback delivers a write at once.
 */
export async function untilServerHasRead(baseUrl: string): Promise<void> {
  const res = await rawRequest(baseUrl, httpMessage('GET /healthz HTTP/1.1'));
  if (res.status !== 200) throw new Error(`GET /healthz answered ${res.status}`);
}
