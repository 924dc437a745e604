/**
 * A fresh PostgreSQL database per test run, on the machine's server (127.0.0.1:5432, trust auth; CI
 * starts it). LOCKCLOUD_TEST_PG_URL names another server: an URL whose database the tests may connect
 * to as a user allowed to CREATE and DROP databases.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL =
  process.env.LOCKCLOUD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly name: string;
  /** postgres://... of the new, empty database. */
  readonly url: string;
  /** Drops it, ending whatever connections are still open on it. Safe to call twice. */
  drop(): Promise<void>;
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The URL of `database` on the admin URL's server, as the admin URL's user. */
export function databaseUrl(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates `lockcloud_t_<pid>_<random>`: unique across the processes of one test run and across runs. */
export async function createTestDatabase(): Promise<TestDatabase> {
  // Only [a-z0-9_]: safe to put in a statement unquoted (CREATE DATABASE takes no parameters).
  const name = `lockcloud_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  let dropped = false;
  return {
    name,
    url: databaseUrl(name),
    async drop() {
      if (dropped) return;
      dropped = true;
      // WITH (FORCE) (PostgreSQL 13+): a pool a failed test left open must not keep the database.
      await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
