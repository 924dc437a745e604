/**
 * Moves SQLite's WAL checkpoints off the event loop. By default SQLite copies the WAL back into the
 * database inside the commit that takes the WAL past 1,000 pages, two fsyncs included, and with
 * better-sqlite3 that commit is on the event loop: every request waits for it. Measured, it is most
 * of the 1-client command p99 (docs/performance-notes.md, issue 25, point 6). Here a second
 * connection in a worker thread runs `PRAGMA wal_checkpoint(PASSIVE)` a few times a second instead: a passive
 * checkpoint never waits for the server's connection and never makes it wait, and a commit after a
 * complete one starts the WAL over. The server's own automatic checkpoint stays, at a higher bound
 * (SERVER_AUTOCHECKPOINT_PAGES), for a worker that falls behind or is gone.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BETTER_SQLITE3_PACKAGE } from './better-sqlite3.ts';

/** Pages of WAL past which the server's connection checkpoints in its commit, as SQLite does. */
export const SERVER_AUTOCHECKPOINT_PAGES = 10_000;
const EVERY_MS = 250;

/** What one checkpoint did: SQLite's answer to `PRAGMA wal_checkpoint`. */
export interface CheckpointResult {
  /** 1 when a lock kept it from running at all (another checkpoint, a recovery). */
  readonly busy: number;
  /** Frames in the WAL. */
  readonly log: number;
  /** Frames of those now in the database. */
  readonly checkpointed: number;
}

// CommonJS, evaluated by the worker: a file of its own would have to be found both under src/ (run
// through tsx) and in the compiled package.
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
parentPort.on('message', (id) => {
  if (id === 'close') {
    db.close();
    process.exit(0);
  }
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ id, result: row });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
parentPort.postMessage({ id: 0, result: null });
`;

interface Reply {
  readonly id: number;
  readonly result?: CheckpointResult | null;
  readonly error?: string;
}

export class WalCheckpointer {
  private readonly pending = new Map<
    number,
    { ok: (r: CheckpointResult) => void; fail: (e: Error) => void }
  >();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private exited = false;
  private closing = false;
  private readonly gone: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly onError: (error: Error) => void,
  ) {
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      // Closing, the worker holds the process until it is gone: an answer to a checkpoint asked
      // before must not let the process end first.
      if (this.pending.size === 0 && !this.closing) worker.unref();
      if (reply.error !== undefined) waiting.fail(new Error(reply.error));
      else if (reply.result) waiting.ok(reply.result);
    });
    worker.on('error', (error) => this.failAll(error));
    this.gone = new Promise((resolve) =>
      worker.once('exit', () => {
        this.exited = true;
        this.failAll(new Error('the checkpoint worker stopped'));
        resolve();
      }),
    );
  }

  /**
   * A worker with its own connection to `file` (the server's database, made and migrated already),
   * ready when this resolves; `every` schedules its checkpoints (none: only checkpoint() runs one).
   */
  static async start(
    file: string,
    onError: (error: Error) => void,
    every: number | false = EVERY_MS,
  ): Promise<WalCheckpointer> {
    const module = createRequire(import.meta.url).resolve(BETTER_SQLITE3_PACKAGE);
    // None of the process's flags: `--input-type=module` would make the code ESM (no require),
    // `--cpu-prof` would profile the worker beside the server, a loader has nothing to load.
    const worker = new Worker(WORKER_CODE, { eval: true, execArgv: [], workerData: { file, module } });
    await new Promise<void>((resolve, reject) => {
      const ready = (reply: Reply) => {
        if (reply.id !== 0) return;
        worker.off('message', ready);
        resolve();
      };
      worker.on('message', ready);
      worker.once('error', reject);
    });
    // The process's lifetime is not the worker's to hold between checkpoints; while one is asked
    // for, or the worker is closing, it is (an answer awaited must not find the process gone).
    worker.unref();
    const checkpointer = new WalCheckpointer(worker, onError);
    if (every !== false) {
      checkpointer.timer = setInterval(() => checkpointer.tick(), every);
      checkpointer.timer.unref();
    }
    return checkpointer;
  }

  /** Runs one passive checkpoint in the worker; rejects once the worker is closing or gone. */
  checkpoint(): Promise<CheckpointResult> {
    // A message to a worker that has stopped is dropped without a word: it would never be answered.
    if (this.exited || this.closing) return Promise.reject(new Error('the checkpoint worker stopped'));
    const id = ++this.next;
    return new Promise((ok, fail) => {
      this.pending.set(id, { ok, fail });
      this.worker.ref();
      this.worker.postMessage(id);
    });
  }

  /**
   * Stops the checkpoints and closes the worker's connection (before the server closes its own).
   * Again, or after the worker stopped on its own: resolves at once.
   */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.closing = true;
    if (!this.exited) {
      this.worker.ref();
      this.worker.postMessage('close');
    }
    await this.gone;
  }

  private tick(): void {
    // One at a time: a slow disk makes a checkpoint take longer than the interval.
    if (this.running) return;
    this.running = true;
    this.checkpoint()
      .catch((error: Error) => this.onError(error))
      .finally(() => {
        this.running = false;
      });
  }

  private failAll(error: Error): void {
    for (const { fail } of this.pending.values()) fail(error);
    this.pending.clear();
  }
}
