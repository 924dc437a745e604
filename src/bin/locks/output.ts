/**
 * What `lockcloud locks` prints: lines on stdout and notes on stderr, tables, one-line statuses,
 * and the progress line shown on a terminal while a task runs.
 */
import type { LockStatus } from '../../../sdk/src/index.ts';

export const NAME = 'lockcloud locks';

export const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
export const note = (line: string): void => {
  process.stderr.write(`${NAME}: ${line}\n`);
};

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** `locked, battery 87%, responsive`: a status on one line. */
export function stateText(status: LockStatus): string {
  return `${status.locked ? 'locked' : 'unlocked'}, battery ${status.battery}%, ${
    status.responsive ? 'responsive' : 'not responsive'
  }`;
}

// ---- a progress line while a task runs (only on a terminal) ----

const FRAMES = ['|', '/', '-', '\\'];

/** Shows `| unlock ID: waiting for the lock (1.2 s)` on stderr, redrawn in place; nothing off a TTY. */
export function progress(label: string): { stop(): void } {
  if (process.stderr.isTTY !== true) return { stop() {} };
  const started = Date.now();
  let frame = 0;
  const draw = (): void => {
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label} (${elapsed} s)`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    },
  };
}
