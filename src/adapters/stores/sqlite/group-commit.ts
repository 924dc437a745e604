/**
 * Group commit for the one SQLite connection a process writes through (issue 25, points 2 and 4).
 *
 * A commit in WAL mode writes a frame for every page its transaction changed, and consecutive
 * transactions change the same pages (the newest page of each index, the event counter): COMMIT was
 * half of a command's SQLite time (docs/performance-notes.md). Here the transactions that finish in
 * the same turn of the event loop share one: the first opens it with `BEGIN IMMEDIATE`, each later
 * one runs inside it as a savepoint, and one COMMIT ends them all when the loop reaches its check
 * phase (setImmediate). Under load a turn finishes many; alone, a transaction is a group of one and
 * runs the same two statements as before.
 *
 * What the callers are promised, as before:
 * - Nothing is handed back before it is committed: a transaction's commit, and a statement run on
 *   its own while a group is open (it reads, or writes, the group's uncommitted rows), resolve only
 *   after the group's COMMIT. So nothing is answered, cached or announced before it is in the WAL.
 * - A transaction that fails is undone alone (ROLLBACK TO its savepoint); the others go on.
 * - An error that ends SQLite's transaction (a full disk, an I/O error) or a failed COMMIT fails
 *   every member of the group: none of their work is kept, and each is told.
 * - `BEGIN IMMEDIATE` takes the write lock at the start, so another process (the admin CLI) cannot
 *   commit in the middle of a group: reads in a group see every commit made before it began.
 *
 * The connection is handed to one caller at a time (a FIFO mutex); a member lets it go as soon as
 * its own statements are done, not when its group commits, so the next transaction can join.
 *
 * A statement on its own may therefore run inside another's open transaction: one that SQLite
 * ignores or refuses there (`PRAGMA foreign_keys`, `VACUUM`) belongs on the raw connection before
 * the store is in use, as open.ts does its pragmas; the migrations use none.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { StoreTraffic } from '../sql/store-traffic.ts';
import type { SqliteConnection, SqliteStatement } from './better-sqlite3.ts';

/** What the driver needs of the connection: better-sqlite3's, and its statements by SQL text. */
export interface GroupCommitOptions {
  readonly connection: SqliteConnection;
  readonly prepare: (sql: string) => SqliteStatement;
  readonly traffic?: StoreTraffic;
}

/** Kysely's SQLite dialect with the group-committing driver. */
export class GroupCommitSqliteDialect implements Dialect {
  constructor(private readonly options: GroupCommitOptions) {}

  createDriver(): Driver {
    return new GroupCommitDriver(this.options);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

const SAVEPOINT = 'lockcloud_member';

/** Hands the connection to one waiter at a time, in the order they asked. */
class Mutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  unlock(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** One SQLite transaction shared by the transactions (and statements) of one turn. */
class Group {
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Every member awaits it; this keeps a group whose members are all gone from an unhandled
    // rejection.
    this.committed.catch(() => {});
  }
}

/** The group's transaction was rolled back: a member's work that was done is not kept. */
export class GroupRolledBackError extends Error {
  constructor(cause: unknown) {
    super(`the transaction was rolled back with the others committed with it: ${describe(cause)}`, { cause });
    this.name = 'GroupRolledBackError';
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Where one caller's hold on the connection stands. */
type MemberState =
  /** statements on their own */
  | 'alone'
  /** a transaction that opened its group (BEGIN IMMEDIATE): alone in it until it commits */
  | 'opened'
  /** a transaction inside an open group (SAVEPOINT) */
  | 'savepoint'
  /** done with its statements, waiting for its group's COMMIT */
  | 'waiting';

/**
 * The connection as one caller holds it: Kysely asks the driver to begin, commit, roll back and
 * release by connection, and a member that let the connection go early must still be told apart
 * from the caller holding it now. Kept for reuse once released.
 */
class Member implements DatabaseConnection {
  state: MemberState = 'alone';
  holding = false;
  group: Group | undefined;

  constructor(private readonly driver: GroupCommitDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  /** Not used by the store; rows one at a time after the statement ran whole. */
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(query);
    for (const row of rows) yield { rows: [row] };
  }
}

export class GroupCommitDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly idle: Member[] = [];
  private group: Group | undefined;
  private readonly connection: SqliteConnection;
  private readonly prepare: (sql: string) => SqliteStatement;
  private readonly traffic: StoreTraffic | undefined;

  constructor(options: GroupCommitOptions) {
    this.connection = options.connection;
    this.prepare = options.prepare;
    this.traffic = options.traffic;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    const member = this.idle.pop() ?? new Member(this);
    member.holding = true;
    member.state = 'alone';
    member.group = undefined;
    return member;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const member = connection as Member;
    this.traffic?.countCall();
    // SQLite ended the group's transaction under a member that caught the error and went on: a
    // SAVEPOINT now would begin a new transaction, and the lost members would commit as if whole.
    if (this.group !== undefined && !this.connection.inTransaction) {
      this.fail(this.group, new Error('SQLite rolled the transaction back'));
    }
    if (this.group === undefined) {
      // Throws (SQLITE_BUSY after the busy timeout) before anything is open: Kysely releases the
      // connection and the transaction fails, as a plain BEGIN would.
      this.control('BEGIN IMMEDIATE');
      const group = new Group();
      this.group = group;
      member.group = group;
      member.state = 'opened';
      setImmediate(() => void this.flush(group));
      return;
    }
    this.control(`SAVEPOINT ${SAVEPOINT}`);
    member.group = this.group;
    member.state = 'savepoint';
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const member = connection as Member;
    const group = member.group as Group;
    if (!this.connection.inTransaction) {
      // Its work is gone with the transaction SQLite ended (an error it caught): so is the group's.
      member.state = 'waiting';
      const cause = new Error('SQLite rolled the transaction back');
      this.fail(group, cause);
      throw new GroupRolledBackError(cause);
    }
    if (member.state === 'savepoint') this.control(`RELEASE ${SAVEPOINT}`);
    member.state = 'waiting';
    this.letGo(member);
    await group.committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const member = connection as Member;
    const group = member.group as Group;
    const state = member.state;
    member.state = 'alone';
    // Its group's COMMIT failed: there is nothing of its own left to undo.
    if (state === 'waiting') return;
    if (state === 'opened') {
      // Nothing joined yet (it held the connection since BEGIN): the group ends with it.
      if (this.group === group) this.group = undefined;
      if (this.connection.inTransaction) this.control('ROLLBACK');
      group.resolve();
      return;
    }
    if (this.connection.inTransaction) {
      try {
        this.control(`ROLLBACK TO ${SAVEPOINT}`);
        this.control(`RELEASE ${SAVEPOINT}`);
        return;
      } catch (error) {
        this.fail(group, error);
        throw error;
      }
    }
    // SQLite ended the transaction itself (SQLITE_FULL, SQLITE_IOERR...): the members before this
    // one lost their work too.
    this.fail(group, new Error('SQLite rolled the transaction back'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const member = connection as Member;
    this.letGo(member);
    member.group = undefined;
    this.idle.push(member);
  }

  async destroy(): Promise<void> {
    const group = this.group;
    if (group !== undefined) await this.flush(group);
    this.connection.close();
  }

  /** A statement from Kysely: in its caller's transaction, on its own, or inside an open group. */
  async execute<R>(member: Member, query: CompiledQuery): Promise<QueryResult<R>> {
    const alone = member.state === 'alone';
    if (alone) this.traffic?.countCall();
    const group = alone ? this.group : undefined;
    let result: QueryResult<R>;
    try {
      result = this.run<R>(query);
    } catch (error) {
      if (group !== undefined && !this.connection.inTransaction) this.fail(group, error);
      throw error;
    }
    if (group === undefined) return result;
    // It ran inside the group's transaction: what it read or wrote is the group's until COMMIT.
    this.letGo(member);
    await group.committed;
    return result;
  }

  private run<R>(query: CompiledQuery): QueryResult<R> {
    this.traffic?.countStatement();
    const statement = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  private control(sql: string): void {
    this.traffic?.countStatement();
    this.prepare(sql).run();
  }

  private letGo(member: Member): void {
    if (!member.holding) return;
    member.holding = false;
    this.mutex.unlock();
  }

  /** Commits the group once the connection is free: after whoever holds it now is done. */
  private async flush(group: Group): Promise<void> {
    await this.mutex.lock();
    try {
      if (this.group !== group) return;
      this.group = undefined;
      try {
        this.traffic?.countCommit();
        this.control('COMMIT');
      } catch (error) {
        this.fail(group, error);
        return;
      }
      group.resolve();
    } finally {
      this.mutex.unlock();
    }
  }

  /** Ends the group now, undone: every member waiting on it fails. */
  private fail(group: Group, cause: unknown): void {
    if (this.group === group) this.group = undefined;
    if (this.connection.inTransaction) this.rollbackQuietly();
    group.reject(new GroupRolledBackError(cause));
  }

  private rollbackQuietly(): void {
    try {
      this.control('ROLLBACK');
    } catch {
      // The transaction is gone either way; the members are told by the rejection.
    }
  }
}
