/**
 * Tells a PostgreSQL that cannot be reached from every other failure, and says so with the app's
 * BackendUnavailableError: the APIs answer it 503 with Retry-After instead of 500 (docs/errors.md).
 * Without this a restart of the database answered every request 500 INTERNAL_ERROR, logged as a
 * server fault, until the pool had reconnected.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { BackendUnavailableError } from '../../../app/unavailable.ts';

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not yet there: admin_shutdown (a fast or smart stop),
 * crash_shutdown (another backend crashed), cannot_connect_now (starting up, shutting down,
 * recovering), too_many_connections; and class 08, connection exceptions.
 */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/** pg's own errors for a connection that ended or never came (they carry no code). */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Connection terminated due to connection timeout)/;

export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}

function translate(error: unknown): never {
  throw isConnectionFailure(error) ? new BackendUnavailableError('database', error) : error;
}

/** The pool as Kysely sees it, with connection failures translated on connect and on every query. */
export function guardedPool(pool: pg.Pool): PostgresPool {
  // pg-pool listens for a client's errors only while it is idle. One checked out between two
  // statements (inside a transaction) that the server ends (a fast stop: FATAL 57P01) emitted
  // 'error' with no listener, which ended the whole process. The listener goes on as the pool
  // makes the client ('connect' is emitted before the pool stops listening): a new client is handed
  // out while the TCP chunk that made it ready is still being parsed, and a FATAL in the same chunk
  // comes before any promise callback could add one (test/stores/postgres-shutdown-race.test.ts).
  // The error is not lost: the client is then not queryable, its next query fails (and is
  // translated above), and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let guarded = wrapped.get(client);
    if (guarded === undefined) {
      const query = (...args: unknown[]): unknown => {
        const result = (client.query as (...a: unknown[]) => unknown)(...args);
        // A cursor (streaming) is returned as it is; a query's promise has its failure translated.
        return result instanceof Promise ? result.catch(translate) : result;
      };
      guarded = { query, release: () => client.release() } as PostgresPoolClient;
      wrapped.set(client, guarded);
    }
    return guarded;
  };
  return {
    connect: () => pool.connect().then(wrap, translate),
    end: () => pool.end(),
  };
}
