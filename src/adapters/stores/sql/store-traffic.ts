import type { DatabaseConnection } from 'kysely';

const OPENS = /^\s*(begin|start transaction)\b/i;
const CLOSES = /^\s*(commit|rollback)\b/i;
const COMMITS = /^\s*commit\b/i;

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
  private sentCommits = 0;

  get statements(): number {
    return this.sentStatements;
  }

  get calls(): number {
    return this.sentCalls;
  }

  /**
   * Of the statements, the COMMITs: on SQLite one may carry many transactions (group commit,
   * sqlite/group-commit.ts), so transactions over commits is how many a commit carried.
   */
  get commits(): number {
    return this.sentCommits;
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

  /** A statement, counted by a driver that knows what it runs (sqlite/group-commit.ts). */
  countStatement(): void {
    this.sentStatements++;
  }

  /** Of the statements, a COMMIT, counted by a driver that knows what it runs. */
  countCommit(): void {
    this.sentCommits++;
  }

  /**
   * A call begun: a transaction or a statement on its own, counted by a driver that knows which
   * (sqlite/group-commit.ts, where a transaction may be a savepoint in another's and its COMMIT
   * shared).
   */
  countCall(): void {
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
      } else if (CLOSES.test(query.sql)) {
        inTransaction = false;
        if (COMMITS.test(query.sql)) this.sentCommits++;
      } else if (!inTransaction) this.sentCalls++;
      return execute(query);
    };
    return Promise.resolve();
  };
}
