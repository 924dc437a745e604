import type { DatabaseConnection } from 'kysely';

const OPENS = /^\s*(begin|start transaction)\b/i;
const CLOSES = /^\s*(commit|rollback)\b/i;

/**
 * What this process sends its database, counted on the connections (metrics; the command bench
 * divides it by the commands it made, issue 25 point 2):
 * - `statements`: every statement, BEGIN and COMMIT included. On PostgreSQL each is a round trip on
 *   the wire; on SQLite a call into the engine.
 * - `calls`: a statement on its own, or a whole transaction with all its statements: the store's
 *   work as the use cases ask for it, one atomic unit each.
 */
export class StoreTraffic {
  private sentStatements = 0;
  private sentCalls = 0;
  private sentFences = 0;

  get statements(): number {
    return this.sentStatements;
  }

  get calls(): number {
    return this.sentCalls;
  }

  /** Of the statements, the read cache's fences on PostgreSQL (countFence). */
  get fences(): number {
    return this.sentFences;
  }

  /**
   * A fence of the PostgreSQL read cache (postgres/commits-elsewhere.ts): a statement and a round
   * trip of its own, on the connection that listens rather than through Kysely.
   */
  countFence(): void {
    this.sentFences++;
    this.sentStatements++;
    this.sentCalls++;
  }

  /**
   * For a dialect's `onCreateConnection`: counts every statement the connection runs. Kysely itself
   * wraps `executeQuery` the same way to log; a connection is made once and kept by its driver. A
   * connection runs one transaction at a time, so whether it is in one is the connection's own.
   */
  readonly counting = (connection: DatabaseConnection): Promise<void> => {
    const execute = connection.executeQuery.bind(connection);
    let inTransaction = false;
    connection.executeQuery = (query) => {
      this.sentStatements++;
      if (OPENS.test(query.sql)) {
        inTransaction = true;
        this.sentCalls++;
      } else if (CLOSES.test(query.sql)) inTransaction = false;
      else if (!inTransaction) this.sentCalls++;
      return execute(query);
    };
    return Promise.resolve();
  };
}
