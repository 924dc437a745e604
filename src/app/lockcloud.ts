import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../domain/rate-limit.ts';
import { Accounts } from './accounts/index.ts';
import type { AccountLimits } from './accounts/limits.ts';
import { ApiKeyAuth } from './auth.ts';
import { CommandBudget } from './command-budget.ts';
import { type CommandPolicy, Commands } from './commands.ts';
import { DEMO_META_KEY, type Demo, demoSeed } from './demo.ts';
import { DeviceLink } from './device-link.ts';
import { DeviceReports } from './device-reports.ts';
import { EventFollower } from './event-follower.ts';
import { DEFAULT_EVENT_RETENTION_DAYS, EventLog } from './event-log.ts';
import { DEFAULT_STREAM_LIMITS, EventStreams, type StreamLimits } from './event-stream.ts';
import { Grants } from './grants.ts';
import { GuestCommands, OneTimeGrants } from './guest-commands.ts';
import { HourlyPurges } from './hourly-purges.ts';
import { IdempotentCommands } from './idempotent-commands.ts';
import { LockDetails } from './lock-details.ts';
import { LockSettings } from './lock-settings.ts';
import { LockQueries } from './locks.ts';
import { DEFAULT_LOGIN_LIMITS, Login, type LoginLimits } from './login.ts';
import { OAuthApps } from './oauth/apps.ts';
import { BearerAuth } from './oauth/bearer.ts';
import { OAuthConsents } from './oauth/consents.ts';
import { OAuthRecords } from './oauth/records.ts';
import { DEFAULT_OFFLINE_GRACE_MS, OfflineSweeper } from './offline-sweeper.ts';
import type {
  BrokerPasswordHasher,
  Clock,
  ClockControl,
  CodeHasher,
  DeviceGateway,
  EventBus,
  Logger,
  Mailbox,
  Mailer,
  Metrics,
  PasswordHasher,
  RandomSource,
  RateLimitStore,
  SecretBox,
  SecretHasher,
  Simulator,
  Store,
  WebhookSigner,
  WebhookTransport,
} from './ports.ts';
import { RateLimits } from './rate-limits.ts';
import { Sandbox } from './sandbox.ts';
import { loadSeed, SEED_CREATED_AT } from './seed/load.ts';
import type { Seed } from './seed/schema.ts';
import { TokenAuth } from './token-auth.ts';
import type { DispatcherLimits, WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { WebhookEndpoints } from './webhooks/endpoints.ts';
import type { WebhookReceivers } from './webhooks/receivers.ts';
import type { WebhookRelay } from './webhooks/relay.ts';
import type { WebhookSettings } from './webhooks/settings.ts';
import { webhookParts } from './webhooks/wiring.ts';

export interface LockcloudDeps {
  readonly store: Store;
  readonly gateway: DeviceGateway;
  readonly simulator: Simulator;
  readonly clock: Clock;
  readonly clockControl: ClockControl;
  readonly random: RandomSource;
  readonly secrets: SecretHasher;
  readonly passwords: PasswordHasher;
  readonly events: EventBus;
  readonly mailbox: Mailbox;
  readonly logger: Logger;
  readonly policy: CommandPolicy;
  /** undefined: rate limiting is off (--no-rate-limit). */
  readonly rateLimits: RateLimitStore | undefined;
  readonly loginLimits?: LoginLimits;
  readonly rateLimitSettings?: RateLimitSettings;
  readonly secretBox: SecretBox;
  /** Device secrets hashed for an external broker's password file; only seeded access points use it. */
  readonly brokerPasswords?: BrokerPasswordHasher;
  readonly webhookSigner: WebhookSigner;
  readonly webhookTransport: WebhookTransport;
  readonly webhookLimits?: DispatcherLimits;
  /** The dashboard's mail (codes): stored for /_sim/mailbox, logged, or sent over SMTP. */
  readonly mailer: Mailer;
  readonly codeHasher: CodeHasher;
  readonly accountLimits?: AccountLimits;
  /** Commands and webhook attempts counted for the operator; none by default. */
  readonly metrics?: Metrics;
  /** Other server processes use the same store (PostgreSQL): nothing at start-up is ours alone. */
  readonly sharedStore?: boolean;
  /** How long the event log keeps an event (--event-retention-days). */
  readonly eventRetentionDays?: number;
  /** How long a lock stays out of reach before lock.offline is written (--offline-grace-seconds). */
  readonly offlineGraceMs?: number;
  /** The live event stream's heartbeat and per-account limit. */
  readonly streamLimits?: StreamLimits;
  /** Days of nothing but failed deliveries after which a webhook endpoint is disabled (3). */
  readonly endpointDisableDays?: number;
}

export interface StartOptions {
  /** A validated seed to load into an empty store. */
  readonly seed?: Seed;
  /** Keep a snapshot of the initial data so the sandbox can reset to it. */
  readonly sandbox: boolean;
  /** Production: a store holding the demo is not started at all (nothing in it is touched). */
  readonly refuseDemoData: boolean;
}

/**
 * What start() found or made. `empty`: nothing, and no seed; the sandbox then makes the demo with
 * createDemo() once the server listens. `demo` is what createDemo() made.
 */
export type StartReport =
  | { readonly kind: 'seeded' }
  | { readonly kind: 'demo'; readonly demo: Demo }
  | { readonly kind: 'existing'; readonly seedIgnored: boolean; readonly demoData: boolean }
  | { readonly kind: 'refused-demo-data' }
  | { readonly kind: 'empty' };

/** The application: every use case, built once over the chosen adapters. */
export class Lockcloud {
  readonly auth: ApiKeyAuth;
  readonly tokenAuth: TokenAuth;
  readonly login: Login;
  readonly locks: LockQueries;
  readonly commands: Commands;
  /** v3 commands sent with an Idempotency-Key. */
  readonly idempotentCommands: IdempotentCommands;
  readonly reports: DeviceReports;
  readonly devices: DeviceLink;
  readonly sandbox: Sandbox;
  readonly webhooks: WebhookSettings;
  readonly dispatcher: WebhookDispatcher;
  /** The account's webhook endpoints, fed by the event log (docs/webhooks.md "Endpoints"). */
  readonly webhookEndpoints: WebhookEndpoints;
  private readonly relay: WebhookRelay;
  private readonly receivers: WebhookReceivers;
  /** undefined when rate limiting is off. */
  readonly rateLimits: RateLimits | undefined;
  /** The dashboard's accounts: sign-up, sessions, password reset, account and API Settings. */
  readonly accounts: Accounts;
  readonly lockSettings: LockSettings;
  /** Locks with their health and the owner's settings (/ext/locks, the dashboard's lock card). */
  readonly lockDetails: LockDetails;
  /** Owners' grants of their locks to guest accounts, and the guests' answers (issue 23). */
  readonly grants: Grants;
  /** /ext commands: the owner's, and a guest's through an operate grant. */
  readonly guestCommands: GuestCommands;
  /** Everything that happened to a lock or an account, with who and how (docs/events.md). */
  readonly eventLog: EventLog;
  /** The log as it grows, for GET /ext/events/stream: one follower for every stream of the process. */
  readonly eventStreams: EventStreams;
  private readonly follower: EventFollower;
  /** Third-party apps an account registers (issue 24, docs/oauth.md). */
  readonly oauthApps: OAuthApps;
  /** Owners' authorizations of apps: the consent page, the list of authorized apps, withdrawal. */
  readonly oauthConsents: OAuthConsents;
  /** What the authorization server keeps (codes, tokens, grants), by the hash of each id. */
  readonly oauthRecords: OAuthRecords;
  /** Ended tasks, old v1 tokens, expired idempotency keys, sessions, codes and ended blocks, forgotten each hour. */
  private readonly purges: HourlyPurges;
  /** Writes lock.offline for the locks out of reach for the grace period (docs/events.md). */
  private readonly offline: OfflineSweeper;

  // Kept to itself: surfaces reach the application through its use cases only, never its adapters.
  constructor(private readonly deps: LockcloudDeps) {
    this.eventLog = new EventLog(
      deps.store.events,
      deps.clock,
      deps.random,
      deps.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS,
    );
    this.follower = new EventFollower(deps.store.events, deps.clock, deps.events, (error) =>
      deps.logger.error({ err: error }, 'reading the event log for the live streams failed'),
    );
    const { store } = deps;
    this.eventStreams = new EventStreams(
      this.follower,
      store.events,
      store.locks,
      deps.clock,
      deps.streamLimits ?? DEFAULT_STREAM_LIMITS,
    );
    const { oauthApps, oauthRecords } = deps.store;
    this.auth = new ApiKeyAuth(
      deps.store.apiKeys,
      deps.secrets,
      deps.clock,
      new BearerAuth(oauthRecords, oauthApps, deps.secrets, deps.clock),
    );
    this.oauthRecords = new OAuthRecords(oauthRecords, deps.secrets, deps.clock);
    this.oauthApps = new OAuthApps({
      apps: oauthApps,
      records: oauthRecords,
      secrets: deps.secrets,
      random: deps.random,
      clock: deps.clock,
      eventLog: this.eventLog,
    });
    this.oauthConsents = new OAuthConsents({
      apps: oauthApps,
      records: oauthRecords,
      locks: deps.store.locks,
      clock: deps.clock,
      eventLog: this.eventLog,
    });
    this.tokenAuth = new TokenAuth(deps.store.tokens, deps.secrets, deps.clock);
    this.login = new Login({
      accounts: deps.store.accounts,
      tokens: deps.store.tokens,
      passwords: deps.passwords,
      secrets: deps.secrets,
      random: deps.random,
      clock: deps.clock,
      limiter: deps.rateLimits,
      limits: deps.loginLimits ?? DEFAULT_LOGIN_LIMITS,
      eventLog: this.eventLog,
      logger: deps.logger,
    });
    const rateLimitSettings = deps.rateLimitSettings ?? DEFAULT_RATE_LIMITS;
    this.rateLimits =
      deps.rateLimits &&
      new RateLimits(deps.rateLimits, deps.store.blocks, deps.clock, rateLimitSettings, deps.logger);
    const webhooks = webhookParts(deps, this.eventLog);
    this.webhooks = webhooks.settings;
    this.webhookEndpoints = webhooks.endpoints;
    this.dispatcher = webhooks.dispatcher;
    this.receivers = webhooks.receivers;
    this.relay = webhooks.relay;
    this.locks = new LockQueries(deps.store.locks);
    this.accounts = new Accounts({
      store: deps.store,
      login: this.login,
      passwords: deps.passwords,
      secrets: deps.secrets,
      codeHasher: deps.codeHasher,
      random: deps.random,
      clock: deps.clock,
      mailer: deps.mailer,
      logger: deps.logger,
      limiter: deps.rateLimits,
      limits: deps.accountLimits,
      eventLog: this.eventLog,
    });
    this.lockSettings = new LockSettings(deps.store, this.locks);
    this.grants = new Grants({
      store: deps.store,
      queries: this.locks,
      clock: deps.clock,
      random: deps.random,
      budgets: this.accounts.budgets,
      eventLog: this.eventLog,
    });
    this.offline = new OfflineSweeper(
      deps.store.locks,
      this.eventLog,
      deps.clock,
      deps.logger,
      deps.offlineGraceMs ?? DEFAULT_OFFLINE_GRACE_MS,
    );
    this.lockDetails = new LockDetails({
      store: deps.store,
      queries: this.locks,
      eventLog: this.eventLog,
      devices: deps.gateway,
    });
    this.reports = new DeviceReports(
      deps.store.locks,
      deps.events,
      deps.clock,
      deps.logger,
      { log: this.eventLog, tasks: deps.store.tasks, offline: this.offline },
      deps.gateway,
    );
    this.commands = new Commands({
      tasks: deps.store.tasks,
      locks: this.locks,
      reports: this.reports,
      gateway: deps.gateway,
      clock: deps.clock,
      random: deps.random,
      events: deps.events,
      logger: deps.logger,
      policy: deps.policy,
      budget: new CommandBudget(deps.rateLimits, deps.clock, rateLimitSettings.commands),
      metrics: deps.metrics,
      sharedStore: deps.sharedStore,
      eventLog: this.eventLog,
      onUnlocked: new OneTimeGrants(deps.store, deps.clock, this.eventLog).unlocked,
    });
    this.guestCommands = new GuestCommands({ store: deps.store, commands: this.commands, clock: deps.clock });
    this.idempotentCommands = new IdempotentCommands({
      keys: deps.store.idempotencyKeys,
      commands: this.commands,
      clock: deps.clock,
      hasher: deps.secrets,
    });
    this.devices = new DeviceLink({
      locks: deps.store.locks,
      accessPoints: deps.store.accessPoints,
      accounts: deps.store.accounts,
      reports: this.reports,
      commands: this.commands,
      clock: deps.clock,
      logger: deps.logger,
      eventLog: this.eventLog,
    });
    deps.gateway.listen(this.devices);
    this.sandbox = new Sandbox({
      store: deps.store,
      simulator: deps.simulator,
      clock: deps.clock,
      clockControl: deps.clockControl,
      commands: this.commands,
      passwords: deps.passwords,
      mailbox: deps.mailbox,
      rateLimits: this.rateLimits,
      dispatcher: this.dispatcher,
      random: deps.random,
      secrets: deps.secrets,
      secretBox: deps.secretBox,
      brokerPasswords: deps.brokerPasswords,
    });
    this.purges = new HourlyPurges(deps.clock, deps.logger, [
      { what: 'ended tasks', run: (now) => this.commands.purge(now) },
      { what: 'expired v1 tokens', run: (now) => this.tokenAuth.purge(now) },
      { what: 'expired idempotency keys', run: (now) => this.idempotentCommands.purge(now) },
      ...this.accounts.purges(),
      // Only blocks in force are ever read (every request, the admin CLI); ended ones were never
      // forgotten before this loop ran them too.
      { what: 'ended IP blocks', run: (now) => deps.store.blocks.purgeEndedBefore(now) },
      { what: 'events past retention', run: (now) => this.eventLog.purge(now) },
      { what: 'expired OAuth codes and tokens', run: (now) => this.oauthRecords.purge(now) },
    ]);
  }

  /** Fills an empty store with the seed, ends tasks a crash left running, and starts the timers. */
  async start(options: StartOptions): Promise<StartReport> {
    const { store } = this.deps;
    let report: StartReport;
    if (!(await store.isEmpty())) {
      const demoData = (await store.getMeta(DEMO_META_KEY)) === 'true';
      if (demoData && options.refuseDemoData) return { kind: 'refused-demo-data' };
      report = { kind: 'existing', seedIgnored: options.seed !== undefined, demoData };
    } else {
      // A demo cut short before its account was stored left only its mark: nothing of it is here.
      if ((await store.getMeta(DEMO_META_KEY)) === 'true') await store.setMeta(DEMO_META_KEY, 'false');
      if (options.seed) {
        await this.load(options.seed, SEED_CREATED_AT);
        report = { kind: 'seeded' };
      } else {
        report = { kind: 'empty' };
      }
    }
    if (options.sandbox && report.kind !== 'existing') await this.sandbox.saveSnapshot();
    const ended = await this.commands.recover();
    if (ended > 0)
      this.deps.logger.warn({ tasks: ended }, 'ended tasks left processing by an earlier run as TIMEOUT');
    this.commands.start();
    this.purges.start();
    this.offline.start();
    await this.rateLimits?.start();
    await this.dispatcher.start();
    this.receivers.start();
    this.relay.start();
    return report;
  }

  /**
   * Fills the empty store with the demo: one account, two simulated locks, fresh credentials that
   * the answer carries this once (they are stored only hashed), and takes the sandbox's snapshot
   * again so a reset returns to it. The server makes it once it listens (main.ts): a start that
   * cannot listen must not leave behind an account whose credentials nobody saw (issue 20).
   * Undefined when the store is no longer empty: a request that came as the server began to listen
   * (a sign-up) was first, and the data is no longer the sandbox's to fill.
   */
  async createDemo(): Promise<Demo | undefined> {
    const { store } = this.deps;
    if (!(await store.isEmpty())) return undefined;
    const demo = demoSeed(this.deps.random);
    // Marked first: should the start end while it loads, the next one still knows the demo is there
    // and says how to get new credentials for it.
    await store.setMeta(DEMO_META_KEY, 'true');
    await this.load(demo.seed, this.deps.clock.now());
    await this.sandbox.saveSnapshot();
    return demo;
  }

  /**
   * Stops what start() started (safe before it, or after it failed halfway); the adapters are closed
   * by whoever opened them (main.ts), after this.
   */
  /** The time on the server's clock (the sandbox can move it): for surfaces that keep things a while. */
  now(): number {
    return this.deps.clock.now();
  }

  async stop(): Promise<void> {
    this.eventStreams.closeAll();
    this.follower.stop();
    this.commands.stop();
    this.purges.stop();
    this.offline.stop();
    this.rateLimits?.stop();
    await this.relay.stop();
    this.receivers.stop();
    // Before the store closes: deliveries in flight are cut short and logged.
    await this.dispatcher.stop();
  }

  private load(seed: Seed, now: number): Promise<void> {
    const { store, random, secrets, passwords } = this.deps;
    const { secretBox, brokerPasswords } = this.deps;
    return loadSeed(seed, { store, random, secrets, passwords, secretBox, brokerPasswords, now });
  }
}
