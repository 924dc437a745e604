import type { SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { eventually } from './eventually.ts';

/**
 * Waits until every access point of the seed's simulator is online and it and each of its locks
 * have reported (their firmware is known). They connect after the server listens, and their first
 * reports write rows and events: a test that compares the store before and after a request waits
 * for them first, or on a loaded machine it blames the request for them.
 */
export function seededDevicesReported(db: SqliteConnection): Promise<unknown> {
  return eventually('every simulated access point and its locks to report', () => {
    const { n } = db
      .prepare(
        `SELECT (SELECT count(*) FROM access_points WHERE online = 0 OR firmware IS NULL)
              + (SELECT count(*) FROM locks WHERE ap_id IS NOT NULL AND firmware IS NULL) AS n`,
      )
      .get() as { n: number };
    return n === 0;
  });
}
