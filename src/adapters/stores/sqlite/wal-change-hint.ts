import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The first copy of the WAL-index header, at the start of the `-shm` file (docs/sqlite-wal-index.md).
 * Every commit rewrites it: `iChange` counts transactions, and `mxFrame` and the frame checksums move
 * with each one. Readers taking read marks do not touch it (the marks live after both copies).
 */
const HEADER_BYTES = 48;
/** `iVersion`, the header's first field: the format every SQLite since 3.7.0 writes. */
const WAL_INDEX_VERSION = 3_007_000;

export interface WalChangeCheck {
  /** SQLite's `PRAGMA data_version`, asked only when a commit may have happened since it was last asked. */
  readonly dataVersion: () => number;
  /** How many times the exact check was asked (the tests count it). */
  readonly exactChecks: () => number;
  readonly close: () => void;
}

/**
 * `PRAGMA data_version` is exact but costs a read transaction: two `fcntl` lock calls and SQLite's
 * read setup (1.45 µs in a loop here). One `pread` of the `-shm` file's header costs less (0.57 µs)
 * and changes at every commit by any connection, ours included. Measured over HTTP the gain is small
 * (docs/performance-notes.md, issue 25: a system call costs several times its loop figure there).
 * So the header is a hint: when it is byte for byte what it was at the last exact check, no commit
 * has happened since and the last answer still holds; when it differs (a commit, ours or
 * another process's, or a checkpoint restarting the WAL), data_version is asked. The header is read
 * before data_version, so a commit landing between the two changes the header again and the next
 * call asks anew: no commit is missed, only some are checked twice.
 *
 * Anything unexpected (no `-shm` file, a short read, a header of another format) asks data_version
 * every time, as before the hint.
 */
export function walChangeCheck(databaseFile: string, exact: () => number): WalChangeCheck {
  let asked = 0;
  const ask = (): number => {
    asked += 1;
    return exact();
  };
  let fd: number | undefined;
  try {
    fd = openSync(`${databaseFile}-shm`, 'r');
  } catch {
    fd = undefined;
  }
  const seen = Buffer.alloc(HEADER_BYTES);
  const now = Buffer.alloc(HEADER_BYTES);
  let version: number | undefined;

  const headerRead = (): boolean => {
    if (fd === undefined) return false;
    try {
      return (
        readSync(fd, now, 0, HEADER_BYTES, 0) === HEADER_BYTES && now.readUInt32LE(0) === WAL_INDEX_VERSION
      );
    } catch {
      return false;
    }
  };

  return {
    dataVersion() {
      if (!headerRead()) {
        version = undefined;
        return ask();
      }
      if (version !== undefined && now.equals(seen)) return version;
      now.copy(seen);
      version = ask();
      return version;
    },
    exactChecks: () => asked,
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
