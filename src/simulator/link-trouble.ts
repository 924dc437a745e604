/**
 * What simulated access points tell when their broker cannot be reached: a thousand access points
 * each printing a stack trace every second said one thing a thousand times a second (issue 20). They
 * try again after a growing wait (`reconnectDelayMs`), and their failures are told together: one
 * line per reason and wait, per round of attempts.
 */

/** The first wait after a lost or refused connection; each next failure doubles it, up to the cap. */
export const FIRST_RECONNECT_MS = 1000;
export const MAX_RECONNECT_MS = 30_000;

/** How long to wait before the next attempt, after `failures` failed ones in a row (1 or more). */
export function reconnectDelayMs(failures: number): number {
  const doublings = Math.min(Math.max(failures, 1) - 1, 16);
  return Math.min(FIRST_RECONNECT_MS * 2 ** doublings, MAX_RECONNECT_MS);
}

/** Why a connection failed, in a word where there is one (`ECONNREFUSED`), else its message. */
export function linkReason(error: Error | undefined): string {
  if (error === undefined) return 'the connection closed';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : error.message;
}

/** One line's worth: how many access points failed (or came back) the same way. */
export interface LinkTroubleSummary {
  readonly accessPoints: number;
  /** undefined: they are connected again. */
  readonly reason?: string;
  readonly retryInMs?: number;
}

/** How long failures are gathered before they are told: an attempt round fails within it. */
const GATHER_MS = 200;

/**
 * Gathers the access points' connection failures and recoveries, and tells each group once. Only
 * an access point that failed is told when it connects again.
 */
export class LinkTrouble {
  private readonly failing = new Set<string>();
  private readonly pending = new Map<string, { reason?: string; retryInMs?: number; apIds: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tell: (summary: LinkTroubleSummary) => void) {}

  failed(apId: string, reason: string, retryInMs: number): void {
    this.failing.add(apId);
    this.add(`down ${retryInMs} ${reason}`, { reason, retryInMs }, apId);
  }

  connected(apId: string): void {
    if (!this.failing.delete(apId)) return;
    this.add('up', {}, apId);
  }

  /** Tells what is gathered now, and forgets who was failing (the fleet stops). */
  stop(): void {
    this.flush();
    this.failing.clear();
  }

  /** Tells what is gathered now rather than at the end of the gathering. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const groups = [...this.pending.values()];
    this.pending.clear();
    for (const { apIds, ...group } of groups) this.tell({ accessPoints: apIds.size, ...group });
  }

  private add(key: string, group: { reason?: string; retryInMs?: number }, apId: string): void {
    let entry = this.pending.get(key);
    if (entry === undefined) {
      entry = { ...group, apIds: new Set() };
      this.pending.set(key, entry);
    }
    entry.apIds.add(apId);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), GATHER_MS);
      // Telling is never a reason to keep a process alive.
      this.timer.unref();
    }
  }
}
