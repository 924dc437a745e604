/**
 * Issue 25, points 2 and 4: the WAL a command writes on SQLite. A commit writes one 4 KB frame (the
 * page and a 24-byte header, checksummed) for every page any of its rows or index entries is on, so
 * the frames a command commits are much of what its COMMITs cost: 78 µs each in the command bench's
 * statement trace (docs/performance-notes.md). Counted through the store itself on a migrated file,
 * a command as the server writes it: the task's create with its event, then the acknowledgement (the
 * lock's status, its movement, the task's end and the end's event) in one transaction. The WAL is
 * emptied before each window of commands (a TRUNCATE checkpoint from a second connection) and its
 * size after the window gives the frames. A count, not a time: the same on any machine.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BetterSqlite3 } from '../src/adapters/stores/sqlite/better-sqlite3.ts';
import { openSqliteStore, SQLITE_FILE_NAME } from '../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../src/app/ports.ts';
import { event, processing } from '../test/stores/event-fixtures.ts';
import { aLock, anAccount } from '../test/support/fixtures.ts';
import { tempDir } from './lib/processes.ts';
import { median, QUICK, report } from './lib/report.ts';

const LOCKS = 1_000;
// SQLite checkpoints on its own past 1,000 frames; a window stays under that.
const WINDOW = 20;
const WINDOWS = QUICK ? 10 : 50;
const FRAME_BYTES = 4096 + 24;
const WAL_HEADER_BYTES = 32;

const dir = tempDir();
const file = join(dir, SQLITE_FILE_NAME);
const store: Store = await openSqliteStore(dir);
await store.accounts.insert(anAccount('owner', { createdAt: 1_000 }));
const devices = Array.from({ length: LOCKS }, (_, i) => `dev-${String(i).padStart(5, '0')}`);
for (const deviceId of devices) await store.locks.insert(aLock(deviceId, 'owner'));

/** One command of the v3 flow on `deviceId`, as the store sees it: its two transactions. */
async function command(n: number, deviceId: string): Promise<void> {
  const taskId = `task-${n}`;
  const at = 10_000 + n;
  const created = await store.tasks.createProcessing(processing(taskId, deviceId), {
    events: [event('command.requested', 'owner', deviceId, at, { taskId })],
  });
  if (!created.created) throw new Error(`${deviceId}: the lock was busy`);
  const read = await store.locks.readStatus(deviceId);
  if (!read) throw new Error(`${deviceId}: no such lock`);
  const written = await store.locks.writeStatusIfAndEnd(
    deviceId,
    read.version,
    { ...read.lock, locked: !read.lock.locked, lastSeenAt: at },
    { apId: 'ap-1', epoch: 'e', seq: n },
    [event(read.lock.locked ? 'lock.unlocked' : 'lock.locked', 'owner', deviceId, at, { taskId })],
    {
      taskId,
      outcome: { successful: true },
      at,
      events: (ended) => [event('command.succeeded', ended.accountId, ended.deviceId, at, { taskId })],
    },
  );
  if (!written.written) throw new Error(`${deviceId}: the status was not written`);
}

/**
 * One at a time, each command's commits are its own; 20 at once, as a server under load finishes
 * them in one turn of its event loop, the transactions share their COMMITs (group commit,
 * src/adapters/stores/sqlite/group-commit.ts). The two alternate window by window.
 */
const MODES = [
  { label: 'one at a time', atOnce: false },
  { label: `${WINDOW} at once`, atOnce: true },
] as const;
const frames = MODES.map((): number[] => []);
const cpu = MODES.map((): number[] => []);
const checkpointer = new BetterSqlite3(file);
let n = 0;
for (let w = 0; w < WINDOWS; w++) {
  for (const [m, mode] of MODES.entries()) {
    checkpointer.pragma('wal_checkpoint(TRUNCATE)');
    const first = n;
    n += WINDOW;
    const started = process.cpuUsage();
    if (mode.atOnce) {
      await Promise.all(
        Array.from({ length: WINDOW }, (_, i) => command(first + i, devices[(first + i) % LOCKS] ?? '')),
      );
    } else {
      for (let i = first; i < first + WINDOW; i++) await command(i, devices[i % LOCKS] ?? '');
    }
    const used = process.cpuUsage(started);
    cpu[m]?.push((used.user + used.system) / WINDOW);
    frames[m]?.push((statSync(`${file}-wal`).size - WAL_HEADER_BYTES) / FRAME_BYTES / WINDOW);
  }
}
checkpointer.close();
await store.close();

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const baselineCpu = median(cpu[0] ?? []);
report({
  name: 'commit-frames',
  title: '2, 4. The WAL a command writes on SQLite (bench/commit-frames.ts)',
  columns: [
    'how the commands came',
    'commands',
    'WAL frames a command (4 KB pages and their headers)',
    'per window of 20: least / most',
    'CPU µs a command in this process (median of the windows)',
    'its ratio to one at a time',
  ],
  rows: MODES.map((mode, m) => {
    const f = frames[m] ?? [];
    const c = median(cpu[m] ?? []);
    return [
      mode.label,
      String(f.length * WINDOW),
      mean(f).toFixed(2),
      `${Math.min(...f).toFixed(2)} / ${Math.max(...f).toFixed(2)}`,
      c.toFixed(0),
      m === 0 ? '1.00 (baseline)' : (c / baselineCpu).toFixed(2),
    ];
  }),
  targets: [],
  notes: [
    `${LOCKS.toLocaleString('en-US')} locks of one account on a migrated file; each command is the task's create with its event, then the acknowledgement (status, movement, the task's end and its event) in one transaction, through the store as the server calls it. The server's read cache and checkpointer change neither.`,
    `${WINDOW} at once: the window's commands started together, so their creates share a group commit, and so do their acknowledgements; one at a time each is a group of one. The CPU is this process's (the store and SQLite, no HTTP or broker), a ratio within the run.`,
  ],
});
