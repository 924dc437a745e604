/**
 * A PostgreSQL that shuts down as a new connection becomes ready (a fast stop, FATAL 57P01) must not
 * end lockcloud. The server here speaks just enough of the wire protocol to send the end of the
 * startup (AuthenticationOk, ReadyForQuery) and the FATAL in one TCP write: pg hands the connection
 * to the pool and the pool to its caller while the same chunk is still being parsed, before any
 * promise callback can run, so a listener attached once the connection is handed out comes too
 * late. Seen in a CI run as "Unhandled 'error' event" under test/reliability/postgres-restart.test.ts.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { postgresKysely } from '../../src/adapters/stores/postgres/open.ts';
import { BackendUnavailableError } from '../../src/app/unavailable.ts';

/** One backend message: its type byte, its length (itself included) and its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const authenticationOk = message('R', Buffer.from([0, 0, 0, 0]));
const readyForQuery = message('Z', Buffer.from('I'));
const adminShutdown = message(
  'E',
  Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0'),
);

describe('PostgreSQL shutting down as a connection becomes ready', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      // The startup message (no SSL request: sslmode is not asked for) is answered at once.
      socket.once('data', () => socket.end(Buffer.concat([authenticationOk, readyForQuery, adminShutdown])));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `postgres://lockcloud@127.0.0.1:${(server.address() as AddressInfo).port}/test`;
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  it('fails the query as unavailable, and the process goes on', async () => {
    const db = postgresKysely(url, { connectTimeoutMs: 5000 });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        await assert.rejects(sql`SELECT 1`.execute(db), (error: unknown) => {
          assert.ok(error instanceof BackendUnavailableError, String(error));
          return true;
        });
      }
    } finally {
      await db.destroy();
    }
  });
});
