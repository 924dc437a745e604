/**
 * The store ports: where accounts, credentials, webhooks and their messages, sessions, codes,
 * blocks, events and rate-limit buckets are kept; locks, grants and tasks have files of their own
 * (locks.ts, grants.ts, tasks.ts), and `Store` gathers them all. One adapter per backend implements them (SQLite,
 * PostgreSQL; memory or Redis for the buckets), held to one contract suite (test/stores).
 * Re-exported by app/ports.ts.
 */
import type { Account } from '../../domain/account.ts';
import type { ApiKey } from '../../domain/api-key.ts';
import type { Delivery, DeliveryOutcome, DueMessage } from '../../domain/delivery.ts';
import type { LockEvent } from '../../domain/event.ts';
import type { CodePurpose, OneTimeCode } from '../../domain/one-time-code.ts';
import type { IpBlock, RateDecision, RatePolicy } from '../../domain/rate-limit.ts';
import type { KeyLimits } from '../../domain/scope.ts';
import type { Session } from '../../domain/session.ts';
import type { LoginToken } from '../../domain/token.ts';
import type { StoredSecrets, WebhookConfig } from '../../domain/webhook.ts';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import type { AccessPointStore, SimDeviceStore } from './devices.ts';
import type { GrantStore } from './grants.ts';
import type { LockStore } from './locks.ts';
import type { OAuthAppStore, OAuthRecordStore } from './oauth.ts';
import type { ReadinessCheck } from './ops.ts';
import type { IdempotencyKeyStore, TaskStore } from './tasks.ts';

export interface AccountStore {
  insert(account: Account): Promise<void>;
  findByEmail(normalizedEmail: string): Promise<Account | undefined>;
  findById(id: string): Promise<Account | undefined>;
  /** `events` are written in the same transaction (a password changed). */
  update(
    id: string,
    patch: Partial<Pick<Account, 'passwordHash' | 'verified' | 'deletedAt' | 'passwordChangedAt'>>,
    events?: readonly LockEvent[],
  ): Promise<void>;
  /** Every account, deleted ones too, ordered by e-mail (the admin CLI's overview). */
  list(): Promise<Account[]>;
}

export interface NewApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly hash: string;
  readonly prefix: string;
  readonly createdAt: number;
  /** Left out: FULL_ACCESS, what every key made before limits has. */
  readonly limits?: KeyLimits;
  readonly name?: string | null;
}

export interface ApiKeyStore {
  /** `events` are written in the same transaction (api_key.created). */
  insert(key: NewApiKey, events?: readonly LockEvent[]): Promise<void>;
  /** The key with this hash, its limits, and its account, if both exist; one indexed lookup. */
  findByHash(hash: string): Promise<{ key: ApiKey; account: Account } | undefined>;
  /** Records a use at `at`, and from `ip` when given (left out: the last address stays). */
  touch(id: string, at: number, ip?: string): Promise<void>;
  /** The account's keys, oldest first (the dashboard's list: prefix, limits, created, last used). */
  listForAccount(accountId: string): Promise<ApiKey[]>;
  /**
   * Deletes one of the account's keys; false when it has no such key. `events` (of the key deleted)
   * are written in the same transaction, only when one was.
   */
  remove(accountId: string, id: string, events?: (key: ApiKey) => readonly LockEvent[]): Promise<boolean>;
}

export interface TokenStore {
  insert(token: LoginToken & { readonly hash: string }): Promise<void>;
  /** The token with this hash and its account, in one indexed lookup. */
  findByHash(hash: string): Promise<{ token: LoginToken; account: Account } | undefined>;
  /** Forgets tokens issued before `cutoff` (long expired: they would only ever answer "expired"). */
  purgeIssuedBefore(cutoff: number): Promise<number>;
}

/** Blocked client addresses, kept with the data so every process and the admin CLI see them. */
export interface BlockStore {
  block(block: IpBlock): Promise<void>;
  /** Blocks still in force at `now`. */
  listActive(now: number): Promise<IpBlock[]>;
  /** Lifts a block; false when there was none. */
  unblock(ip: string): Promise<boolean>;
  purgeEndedBefore(cutoff: number): Promise<number>;
}

/**
 * Where rate-limit state lives (memory in one process, Redis across several). Each call applies
 * the policy to the key atomically at the time given, so the clock stays the caller's.
 */
export interface RateLimitStore {
  /**
   * Spends one request of `key`'s bucket. A store in this process's memory answers at once, not
   * through a promise: every limited request spends two buckets, and the read path's CPU budget has
   * no room for the microtasks (issue 25).
   */
  consume(key: string, policy: RatePolicy, now: number): RateDecision | Promise<RateDecision>;
  /**
   * What consume would answer, spending nothing: for a budget of failures, checked before the
   * attempt and spent only once it has failed (app/login.ts).
   */
  peek(key: string, policy: RatePolicy, now: number): Promise<RateDecision>;
  /** Remembers `key` until `now + forMs`; a later call moves the end (a client seen to log in). */
  remember(key: string, now: number, forMs: number): Promise<void>;
  /** Whether `key` is remembered at `now`. */
  remembers(key: string, now: number): Promise<boolean>;
  /** Forgets every key (sandbox reset). */
  clear(): Promise<void>;
  close(): Promise<void>;
  /** What readiness checks for a shared backend (none in memory). */
  readinessChecks?(): readonly ReadinessCheck[];
}

export interface WebhookStore {
  /** `events` are written in the same transaction (webhook.updated). */
  set(config: WebhookConfig, events?: readonly LockEvent[]): Promise<void>;
  get(accountId: string): Promise<WebhookConfig | undefined>;
  /** `events` are written with it, only when there was a webhook to remove. */
  remove(accountId: string, events?: readonly LockEvent[]): Promise<boolean>;
  setSecrets(accountId: string, secrets: StoredSecrets): Promise<void>;
  getSecrets(accountId: string): Promise<StoredSecrets | undefined>;
}

/** What a query for due messages leaves out, so that its rows are ones that may start now. */
export interface DueSkip {
  /** Accounts none of whose messages may start now. */
  readonly accounts: readonly string[];
  /** URL hosts (host:port, as a delivery has it) no message may go to now. */
  readonly hosts: readonly string[];
  /** An account's messages to a URL host wait (that account is full at the host). */
  readonly accountHosts: readonly (readonly [account: string, host: string])[];
}

export interface DeliveryStore {
  insert(delivery: Delivery): Promise<void>;
  /**
   * `endpointId` here and below: the log of that webhook endpoint; left out, the API Settings
   * webhook's ('' in the store). The two never mix.
   */
  get(accountId: string, id: string, endpointId?: string): Promise<Delivery | undefined>;
  /** Newest first; with `beforeSeq`, only older than that message (a page of an endpoint's log). */
  listForAccount(
    accountId: string,
    limit: number,
    endpointId?: string,
    beforeSeq?: number,
  ): Promise<Delivery[]>;
  /**
   * Pending deliveries due at `now`, oldest first, leaving out what `skip` names. Only the first
   * unfinished message of each lock is ever due: a later one waits while an earlier one is being
   * sent or waits for a retry, so a lock's messages leave in the order of its changes.
   */
  due(now: number, limit: number, skip: DueSkip): Promise<DueMessage[]>;
  /** The account's messages waiting or being sent, counted up to `atMost`. */
  countOpen(accountId: string, atMost: number): Promise<number>;
  /**
   * Takes a pending delivery for sending (at `now`) and answers it as taken; undefined when another
   * worker took it first.
   */
  claim(id: string, now: number): Promise<Delivery | undefined>;
  /** Records an attempt; a message whose endpoint was removed while it was out is forgotten instead. */
  record(id: string, outcome: DeliveryOutcome): Promise<void>;
  /**
   * Deliveries left `sending` by a crash: they may or may not have left, so they are not sent again
   * (failed, the cut-short attempt counted). With `claimedBefore`, only those taken for sending
   * before it: with several processes, a recent one is another process's, being sent now.
   */
  failInterrupted(now: number, claimedBefore?: number): Promise<number>;
  /**
   * Ends the account's messages that wait to be sent (pending) as failed with `error`: its webhook is
   * gone. A message being sent is left to finish.
   */
  cancelPending(accountId: string, error: string, endpointId?: string): Promise<number>;
  /** Keeps the newest `keep` log entries of the account. */
  trim(accountId: string, keep: number, endpointId?: string): Promise<number>;
}

/** What the relay's plan has to go on, read in its transaction for the batch's accounts. */
export interface RelayTargets {
  /** The enabled endpoints of the batch's accounts. */
  readonly endpoints: readonly WebhookEndpoint[];
  /** The API Settings webhooks of the batch's accounts that have one, by account. */
  readonly webhooks: ReadonlyMap<string, WebhookConfig>;
  /**
   * Messages waiting or out, by `openKey(account, endpoint)` (endpoint '' for the webhook), for the
   * batch's accounts that have a webhook or an endpoint; counted no further than `RelayLimits.open`
   * (domain/delivery.ts `openKey`).
   */
  readonly open: ReadonlyMap<string, number>;
  /**
   * By account, the log position the webhook reports the changes after: where it was set up, or
   * where the webhook began to read the log (its messages before were written another way).
   */
  readonly webhookFrom: ReadonlyMap<string, number>;
}

/** A message the relay writes, and the event it is for (never two messages of one receiver and event). */
export interface RelayedMessage {
  readonly message: Delivery;
  readonly eventId: string;
}

/**
 * The relay's plan for a batch of the log: the messages for these events (in the events' order).
 * Pure; the store writes what it answers.
 */
export type RelayPlan = (
  batch: readonly SequencedEvent[],
  targets: RelayTargets,
) => readonly RelayedMessage[];

export interface RelayLimits {
  /** The most events read in one transaction. */
  readonly batch: number;
  /** How far the open messages of each webhook or endpoint are counted (the backlog bound). */
  readonly open: number;
  /**
   * This process knows of no account with a webhook or an enabled endpoint: the store then checks
   * that for every process and, when none has one, moves the position to the log's head without
   * reading the events (there is nothing to write for them).
   */
  readonly skipWithoutReceivers?: boolean;
}

/** Webhook endpoints (docs/webhooks.md "Endpoints"); their messages live in the DeliveryStore. */
export interface WebhookEndpointStore {
  /** `events` are written in the same transaction (webhook.endpoint_created). */
  insert(endpoint: WebhookEndpoint, secrets: StoredSecrets, events?: readonly LockEvent[]): Promise<void>;
  get(accountId: string, id: string): Promise<WebhookEndpoint | undefined>;
  /** Oldest first. */
  list(accountId: string): Promise<WebhookEndpoint[]>;
  count(accountId: string): Promise<number>;
  /** Writes url, types, devices, retries, enabled and the disabled/failing fields; false when gone. */
  update(endpoint: WebhookEndpoint, events?: readonly LockEvent[]): Promise<boolean>;
  /** Removes it; its waiting and finished messages go with it (one being sent finishes). */
  remove(accountId: string, id: string, events?: readonly LockEvent[]): Promise<boolean>;
  setSecrets(id: string, secrets: StoredSecrets): Promise<void>;
  getSecrets(id: string): Promise<StoredSecrets | undefined>;
  /** A message was delivered: the endpoint is not failing. */
  markDelivered(id: string): Promise<void>;
  /** An attempt failed: answers since when the endpoint has been failing (this one if it was not). */
  markFailing(id: string, at: number): Promise<number | undefined>;
  /**
   * Disables an enabled endpoint and ends its waiting messages as failed with `error`; `events` are
   * written with it. False when it was not enabled (another process disabled it first).
   */
  disable(
    id: string,
    at: number,
    reason: string,
    error: string,
    events?: readonly LockEvent[],
  ): Promise<boolean>;
  /**
   * In one transaction: reads the relay's position (locked, so several processes relay each event
   * once), at most `limits.batch` events after it, writes the messages `plan` makes (one per
   * endpoint, or for the webhook, and event at most), and moves the position past the batch.
   * Answers how many events were read: 0 also when `limits.skipWithoutReceivers` moved it.
   */
  relay(limits: RelayLimits, plan: RelayPlan): Promise<number>;
  /**
   * The accounts, not deleted, that have somewhere to be sent webhooks: the API Settings webhook or
   * an enabled endpoint (the relay's wake-ups, app/webhooks/receivers.ts).
   */
  receivingAccounts(): Promise<string[]>;
}

export interface SessionStore {
  insert(session: Session & { readonly hash: string }): Promise<void>;
  /** The session with this token hash and its account, in one indexed lookup. */
  findByHash(hash: string): Promise<{ session: Session; account: Account } | undefined>;
  setApiUnlockedUntil(id: string, until: number | null): Promise<void>;
  remove(id: string): Promise<void>;
  /** Ends every session of the account (password changed elsewhere, account deleted). */
  removeForAccount(accountId: string): Promise<number>;
  purgeExpiredBefore(cutoff: number): Promise<number>;
}

export interface CodeStore {
  /** Stores a new code for the account and purpose, replacing any earlier one: one live code each. */
  replace(code: OneTimeCode): Promise<void>;
  find(accountId: string, purpose: CodePurpose): Promise<OneTimeCode | undefined>;
  /**
   * Counts one attempt, atomically and only while fewer than `max` were made: false when the
   * attempts are spent (another request may have spent the last one meanwhile).
   */
  countAttempt(id: string, max: number): Promise<boolean>;
  /** Marks the code used; false when it already was (two requests with the same code). */
  use(id: string, at: number): Promise<boolean>;
  purgeExpiredBefore(cutoff: number): Promise<number>;
}

export type EventOrder = 'oldest-first' | 'newest-first';

/** What a reader asks of the log; the store applies who may see what (domain/event.ts). */
export interface EventQuery {
  /** The account reading: its own log, and the lock events of locks shared with it. */
  readonly readerId: string;
  readonly deviceId?: string;
  /** Only the events of these locks (an API key limited to them): none of the account's own. */
  readonly deviceIds?: readonly string[];
  /** Types starting with this (`lock.`). */
  readonly typePrefix?: string;
  /** Only events with ids greater than this. */
  readonly after?: string;
  /** Only events with ids less than this. */
  readonly before?: string;
  readonly limit: number;
  readonly order: EventOrder;
}

/** An event with its position in the log's commit order (migration 012). */
export interface SequencedEvent {
  readonly seq: number;
  readonly event: LockEvent;
}

/** The event log. Changes write their events through the other stores, in their transactions. */
export interface EventStore {
  /** Events with no other change to go with (a failed login). */
  append(events: readonly LockEvent[]): Promise<void>;
  /** Raw, for the reader's redaction to follow; guests get only GUEST_EVENT_TYPES of shared locks. */
  list(query: EventQuery): Promise<LockEvent[]>;
  /**
   * Every account's events after position `seq`, in commit order, at most `limit`: what a reader
   * following the log (the live stream, webhook endpoints) has not seen yet. Once position N is
   * read, no event with a smaller position can appear later.
   */
  since(seq: number, limit: number): Promise<SequencedEvent[]>;
  /** An event's position, or undefined when the log does not hold it (never did, or purged). */
  positionOf(id: string): Promise<number | undefined>;
  /** The last position handed out (0 before any event): where a reader starting now begins. */
  head(): Promise<number>;
  /** Forgets events that occurred before `cutoff` (retention). */
  purgeBefore(cutoff: number): Promise<number>;
}

/** An opaque copy of everything stored, for the sandbox's reset. Holds hashes, never secrets. */
export type StoreSnapshot = Readonly<Record<string, readonly Record<string, unknown>[]>>;

export interface Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly locks: LockStore;
  readonly grants: GrantStore;
  readonly tasks: TaskStore;
  readonly idempotencyKeys: IdempotencyKeyStore;
  readonly webhooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly webhookEndpoints: WebhookEndpointStore;
  readonly simDevices: SimDeviceStore;
  readonly accessPoints: AccessPointStore;
  readonly tokens: TokenStore;
  readonly blocks: BlockStore;
  readonly sessions: SessionStore;
  readonly codes: CodeStore;
  readonly events: EventStore;
  readonly oauthApps: OAuthAppStore;
  readonly oauthRecords: OAuthRecordStore;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  isEmpty(): Promise<boolean>;
  snapshot(): Promise<StoreSnapshot>;
  restore(snapshot: StoreSnapshot): Promise<void>;
  /** A trivial query (readiness): resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
