import pg from 'pg';
import { COMMIT_CHANNEL } from '../sql/migrations/022-commit-notices.ts';

export interface CommitsElsewhereOptions {
  readonly url: string;
  /** How long to wait for the connection, and for a fence's answer, before giving up on it. */
  readonly timeoutMs: number;
  /** How long to wait before connecting again once the listening connection is lost (default 1 s). */
  readonly reconnectDelayMs?: number;
  /** Told of every fence sent: a round trip to the database, counted with the store's traffic. */
  readonly onFence?: () => void;
}

/** A statement with no work in it: its answer only says that everything sent before it has arrived. */
const FENCE = 'SELECT 1';

/** The pid PostgreSQL gave a connection (pg keeps it from the BackendKeyData message; untyped). */
const backendPid = (client: pg.ClientBase): number | undefined =>
  (client as unknown as { processID?: number | null }).processID ?? undefined;

/**
 * What the read cache (read-cache.ts) needs on PostgreSQL to stay exact with other processes on the
 * database (other servers, the admin CLI): a number that moves whenever one of them has committed
 * a change to a cached table, known for sure before a cached read is answered.
 *
 * - Migration 022 makes every commit touching a cached table NOTIFY `lockcloud_commits`.
 * - One connection of this process LISTENs. A notification from a backend of this process's own
 *   pool is a write this process made through the cache, which already dropped or kept what it
 *   changed; any other moves the number.
 * - A notification is sent at commit but arrives when it arrives. So before a cached read the number
 *   is read only after a fence: a `SELECT 1` on the listening connection, sent after the read began.
 *   PostgreSQL hands a listening session the notifications committed before it runs a statement
 *   ahead of that statement's answer, and pg emits them in the order they came. A commit another
 *   process finished before this read began (before the request that asks for it was sent) has
 *   therefore moved the number by the time the fence answers.
 * - Reads that begin while a fence is out wait for the next one, sent when it answers and shared by
 *   all of them: under load one round trip serves every request that arrived meanwhile. The reads
 *   that follow from those, before any other I/O is handled, need none (`answered`).
 * - While the listening connection is down, nothing can be known: the answer is undefined, the cache
 *   is bypassed, and once the connection is back the number moves (what happened meanwhile is unknown).
 */
export class CommitsElsewhere {
  private version = 0;
  private listening: pg.Client | undefined;
  private inFlight: Promise<boolean> | undefined;
  private next: Promise<boolean> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Set while the microtasks that follow a fence's answer run (`answered`). */
  private covered = false;
  /** Connections are made again only once the first one was: a store that failed to open tries no more. */
  private started = false;
  private readonly ownBackends = new Set<number>();

  constructor(private readonly options: CommitsElsewhereOptions) {}

  /** Listening once it returns: a database that cannot be reached fails here, as opening the store does. */
  async start(): Promise<void> {
    await this.connect();
    this.started = true;
  }

  /**
   * The backends of `pool` are this process's own: their commits do not move the number. Before the
   * pool's first connection, so that none is missed.
   */
  ownPool(pool: pg.Pool): void {
    pool.on('connect', (client) => {
      const pid = backendPid(client);
      if (pid !== undefined) this.ownBackends.add(pid);
    });
    // A late notification from a removed backend then counts as another process's: a drop too many.
    pool.on('remove', (client) => {
      const pid = backendPid(client);
      if (pid !== undefined) this.ownBackends.delete(pid);
    });
  }

  /** The read cache's `writesElsewhere`. */
  readonly writesElsewhere = (): number | Promise<number | undefined> | undefined => {
    if (this.listening === undefined) return undefined;
    if (this.covered) return this.version;
    return this.fence().then(this.answered);
  };

  /**
   * A fence's answer holds for the reads that waited for it, and for every read their work makes
   * before it next waits on I/O: all of it runs in the microtasks that follow the answer's arrival,
   * and comes of requests that arrived before the fence was sent. This runs as one of those
   * microtasks, so a process.nextTick scheduled here runs once they are all done, before any other
   * I/O is read; until then a read needs no fence of its own (a request's reads of its key, then of
   * its lock, cost one fence between them).
   */
  private readonly answered = (answered: boolean): number | undefined => {
    if (!answered) return undefined;
    if (!this.covered) {
      this.covered = true;
      process.nextTick(this.uncover);
    }
    return this.version;
  };

  private readonly uncover = (): void => {
    this.covered = false;
  };

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.listening;
    this.listening = undefined;
    await client?.end().catch(() => {});
  }

  private fence(): Promise<boolean> {
    if (this.inFlight === undefined) return this.sendFence();
    // The fence out was sent before this read began: it proves nothing for it.
    this.next ??= this.inFlight.then(() => {
      this.next = undefined;
      return this.sendFence();
    });
    return this.next;
  }

  private sendFence(): Promise<boolean> {
    const client = this.listening;
    if (client === undefined) return Promise.resolve(false);
    this.options.onFence?.();
    const fence = client.query(FENCE).then(
      () => true,
      () => {
        // No answer in time or the connection failed: it cannot be trusted to have delivered all.
        this.lost(client);
        return false;
      },
    );
    this.inFlight = fence;
    // Registered before any read's own callbacks on it: the next fence finds none out.
    void fence.then(() => {
      if (this.inFlight === fence) this.inFlight = undefined;
    });
    return fence;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.timeoutMs,
      query_timeout: this.options.timeoutMs,
      application_name: 'lockcloud-commits',
    });
    client.on('notification', (notice) => {
      if (!this.ownBackends.has(notice.processId)) this.version += 1;
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${COMMIT_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    // Whatever was committed while nobody listened is unknown: nothing cached before holds.
    this.version += 1;
    this.listening = client;
  }

  private lost(client: pg.Client): void {
    if (this.listening === client) {
      this.listening = undefined;
      this.version += 1;
      void client.end().catch(() => {});
    }
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (!this.started || this.closed || this.retry !== undefined || this.listening !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().catch(() => this.reconnectLater());
    }, this.options.reconnectDelayMs ?? 1_000);
    this.retry.unref();
  }
}
