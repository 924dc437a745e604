import type { DueSkip } from '../ports.ts';

/**
 * Which waiting webhook messages may start, and in what order: the dispatcher's fairness, with no
 * I/O. It knows only the messages offered to it and the ones it let start, so it does not care
 * where messages come from (the outbox today).
 *
 * - One account holds at most `perAccount` of the process's `total` places, whatever its backlog.
 * - Places go to the least busy account first (the one with the fewest messages out), then to the
 *   oldest message: an account with nothing out is served before any account that has some.
 * - Per receiver host (the resolved IPv4 address, or IPv6 /64, not the URL's host:port): at most
 *   `perHost` of one account's messages, and `perHostTotal` from all accounts together.
 * - A lock's messages leave one at a time, in order.
 */
export interface DispatchLimits {
  /** Messages out at once in this process. */
  readonly total: number;
  /** Messages out at once for one account. */
  readonly perAccount: number;
  /** Messages of one account out at once to one receiver host. */
  readonly perHost: number;
  /** Messages of all accounts out at once to one receiver host. */
  readonly perHostTotal: number;
  /** Messages one account may have waiting or out; a new one past it is logged, not sent. */
  readonly queuePerAccount: number;
  /** The longest one attempt may take. */
  readonly timeoutMs: number;
}

export const DEFAULT_DISPATCH_LIMITS: DispatchLimits = {
  total: 32,
  perAccount: 8,
  perHost: 4,
  perHostTotal: 16,
  queuePerAccount: 1_000,
  timeoutMs: 5_000,
};

/** What the scheduler needs to know of a message. `host` is the URL's host:port. */
export interface Candidate {
  readonly accountId: string;
  readonly deviceId: string;
  readonly host: string;
  readonly seq: number;
}

/** Where a started message's place at a receiver host is counted. */
export type HostPlace =
  /** Its name is not resolved yet: counted per account and URL host. */
  | 'unresolved'
  /** Counted at this receiver host. */
  | { readonly at: string }
  /** Nowhere (it was refused a place, or ended). */
  | 'none';

/** A message let start: what it holds until it ends. */
export interface Ticket {
  readonly accountId: string;
  readonly host: string;
  readonly device: string;
  place: HostPlace;
}

// Names remembered with the receiver host they resolved to; past this many, new ones are not kept.
const MAX_NAMES = 4_096;

const pair = (account: string, host: string): string => `${account}\n${host}`;

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

export class InFlight {
  private count = 0;
  private readonly accounts = new Map<string, number>();
  private readonly devices = new Set<string>();
  /** Receiver host -> places held there, by every account. */
  private readonly receivers = new Map<string, number>();
  /** Account and receiver host -> places held. */
  private readonly accountReceivers = new Map<string, number>();
  /** Account and URL host -> places held by messages whose receiver host is not known yet. */
  private readonly unresolved = new Map<string, number>();
  /** URL host -> the receiver host it last resolved to, kept while that host has places held. */
  private readonly resolved = new Map<string, string>();
  private readonly names = new Map<string, Set<string>>();

  constructor(readonly limits: DispatchLimits) {}

  get room(): number {
    return this.limits.total - this.count;
  }

  /** How many of an account's messages are out. */
  load(accountId: string): number {
    return this.accounts.get(accountId) ?? 0;
  }

  /**
   * The levels to ask for due messages at, least busy first: 0 (accounts with nothing out), then
   * each number of messages out that an account below its limit has.
   */
  levels(): number[] {
    const levels = new Set([0]);
    for (const n of this.accounts.values()) if (n < this.limits.perAccount) levels.add(n);
    return [...levels].sort((a, b) => a - b);
  }

  /** What a query at `level` leaves out: busier accounts, and full receiver hosts. */
  skip(level: number): DueSkip {
    const accounts = [...this.accounts].filter(([, n]) => n > level).map(([account]) => account);
    const hosts: string[] = [];
    for (const [receiver, n] of this.receivers)
      if (n >= this.limits.perHostTotal) hosts.push(...(this.names.get(receiver) ?? []));
    const accountHosts: [string, string][] = [];
    for (const [key, n] of this.accountReceivers) {
      if (n < this.limits.perHost) continue;
      const [account = '', receiver = ''] = key.split('\n');
      for (const host of this.names.get(receiver) ?? []) accountHosts.push([account, host]);
    }
    for (const [key, n] of this.unresolved) {
      if (n < this.limits.perHost) continue;
      const [account = '', host = ''] = key.split('\n');
      accountHosts.push([account, host]);
    }
    return { accounts, hosts, accountHosts };
  }

  /**
   * Chooses which of these due messages start now and takes their places: each time the least busy
   * account's oldest message that may go, until the places run out.
   */
  pick<T extends Candidate>(due: readonly T[]): { candidate: T; ticket: Ticket }[] {
    const queues = new Map<string, T[]>();
    for (const message of due) {
      const queue = queues.get(message.accountId);
      if (queue) queue.push(message);
      else queues.set(message.accountId, [message]);
    }
    const picked: { candidate: T; ticket: Ticket }[] = [];
    while (this.room > 0) {
      let best: T | undefined;
      let bestLoad = Number.POSITIVE_INFINITY;
      for (const [account, queue] of queues) {
        const load = this.load(account);
        const next = load < this.limits.perAccount ? queue.find((m) => this.mayStart(m)) : undefined;
        if (next === undefined) {
          queues.delete(account);
          continue;
        }
        if (load < bestLoad || (load === bestLoad && best !== undefined && next.seq < best.seq)) {
          best = next;
          bestLoad = load;
        }
      }
      if (best === undefined) break;
      const queue = queues.get(best.accountId) ?? [];
      queue.splice(queue.indexOf(best), 1);
      picked.push({ candidate: best, ticket: this.take(best) });
    }
    return picked;
  }

  /**
   * The transport found the receiver host of a started message: true keeps (or moves) its place
   * there; false means that host is full for it, and the message must wait. Either way the URL host
   * is remembered as resolving there, so waiting messages to it are left out while it is full.
   */
  admit(ticket: Ticket, receiver: string): boolean {
    this.remember(ticket.host, receiver);
    if (typeof ticket.place === 'object' && ticket.place.at === receiver) return true;
    this.leaveHost(ticket);
    if (!this.hasRoom(ticket.accountId, receiver)) return false;
    this.hold(ticket, { at: receiver });
    return true;
  }

  /** The message ended (or was given back): its places are free. */
  end(ticket: Ticket): void {
    this.leaveHost(ticket);
    this.count--;
    bump(this.accounts, ticket.accountId, -1);
    this.devices.delete(ticket.device);
  }

  private mayStart(message: Candidate): boolean {
    if (this.devices.has(pair(message.accountId, message.deviceId))) return false;
    const receiver = this.resolved.get(message.host);
    if (receiver !== undefined) return this.hasRoom(message.accountId, receiver);
    return (this.unresolved.get(pair(message.accountId, message.host)) ?? 0) < this.limits.perHost;
  }

  private hasRoom(account: string, receiver: string): boolean {
    return (
      (this.receivers.get(receiver) ?? 0) < this.limits.perHostTotal &&
      (this.accountReceivers.get(pair(account, receiver)) ?? 0) < this.limits.perHost
    );
  }

  private take(message: Candidate): Ticket {
    const ticket: Ticket = {
      accountId: message.accountId,
      host: message.host,
      device: pair(message.accountId, message.deviceId),
      place: 'none',
    };
    this.count++;
    bump(this.accounts, message.accountId, 1);
    this.devices.add(ticket.device);
    const receiver = this.resolved.get(message.host);
    this.hold(ticket, receiver === undefined ? 'unresolved' : { at: receiver });
    return ticket;
  }

  private hold(ticket: Ticket, place: HostPlace): void {
    this.leaveHost(ticket);
    ticket.place = place;
    if (place === 'unresolved') bump(this.unresolved, pair(ticket.accountId, ticket.host), 1);
    else if (place !== 'none') {
      bump(this.receivers, place.at, 1);
      bump(this.accountReceivers, pair(ticket.accountId, place.at), 1);
    }
  }

  private leaveHost(ticket: Ticket): void {
    const { place } = ticket;
    ticket.place = 'none';
    if (place === 'unresolved') bump(this.unresolved, pair(ticket.accountId, ticket.host), -1);
    else if (place !== 'none') {
      bump(this.receivers, place.at, -1);
      bump(this.accountReceivers, pair(ticket.accountId, place.at), -1);
      if (!this.receivers.has(place.at)) this.forget(place.at);
    }
  }

  private remember(host: string, receiver: string): void {
    const before = this.resolved.get(host);
    if (before === receiver) return;
    if (before !== undefined) this.names.get(before)?.delete(host);
    else if (this.resolved.size >= MAX_NAMES) return;
    this.resolved.set(host, receiver);
    const names = this.names.get(receiver);
    if (names) names.add(host);
    else this.names.set(receiver, new Set([host]));
  }

  /** Nothing is out to the receiver host any more: what resolved there need not be remembered. */
  private forget(receiver: string): void {
    for (const host of this.names.get(receiver) ?? []) this.resolved.delete(host);
    this.names.delete(receiver);
  }
}
