import type { Cancel, Clock, Logger, WebhookEndpointStore } from '../ports.ts';

/**
 * How often the list is read again: what another process (or the admin CLI) gave an account is
 * known here by then. Until it is, that account's lock changes are relayed by the relay's poll
 * (200 ms; within a second while this process knows of no receiver at all) instead of at once:
 * later, never lost.
 */
export const RECEIVERS_REFRESH_MS = 5_000;

/**
 * Which accounts have somewhere to be sent webhooks (the API Settings webhook or an enabled
 * endpoint), as this process last read it. The relay writes a lock change's messages the moment
 * it is stored only for these accounts; every other account's change waits for the relay's poll,
 * which reads the log in batches. Without this, every command paid for a relay transaction of its
 * own (about five statements) although most accounts have no webhook at all.
 *
 * Wrong only in the cheap direction: an account given a receiver by this process is added at once
 * (`added`), one given it elsewhere within RECEIVERS_REFRESH_MS; an account whose receiver went
 * stays until the next read, and costs a relay pass that writes nothing.
 */
export class WebhookReceivers {
  private accounts: ReadonlySet<string> | undefined;
  private readonly addedSinceRead = new Set<string>();
  private stopRefreshing: Cancel | undefined;

  constructor(
    private readonly deps: {
      readonly store: Pick<WebhookEndpointStore, 'receivingAccounts'>;
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {}

  /** Reads the list now and then every RECEIVERS_REFRESH_MS. */
  start(): void {
    this.stopRefreshing = this.deps.clock.every(RECEIVERS_REFRESH_MS, () => void this.refresh());
    void this.refresh();
  }

  stop(): void {
    this.stopRefreshing?.();
    this.stopRefreshing = undefined;
  }

  /** Whether a change of this account's lock has a message to be written now. Yes until first read. */
  has(accountId: string): boolean {
    return this.accounts === undefined || this.accounts.has(accountId) || this.addedSinceRead.has(accountId);
  }

  /**
   * No account has a receiver, as this process last read it: the relay may then ask the store to
   * skip the log's new events (it checks again, for every process, in the same statement).
   */
  none(): boolean {
    return this.accounts !== undefined && this.accounts.size === 0 && this.addedSinceRead.size === 0;
  }

  /** This process gave the account a webhook or an endpoint (or enabled one). */
  added(accountId: string): void {
    this.addedSinceRead.add(accountId);
  }

  async refresh(): Promise<void> {
    // What is added while the read runs may be missing from its answer: kept until the next read.
    const pending = [...this.addedSinceRead];
    try {
      this.accounts = new Set(await this.deps.store.receivingAccounts());
      for (const accountId of pending) this.addedSinceRead.delete(accountId);
    } catch (error) {
      // The database is away: keep what was known; the poll relays every change anyway.
      this.deps.logger.warn({ err: error }, 'reading the accounts with webhooks failed');
    }
  }
}
