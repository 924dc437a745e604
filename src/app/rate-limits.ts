import {
  excessPolicy,
  type LimitedEndpoint,
  type OAuthLimitedEndpoint,
  type RateDecision,
  type RateLimitSettings,
  type RatePolicy,
  retryAfterSeconds,
} from '../domain/rate-limit.ts';
import { andThen, type MaybePromise } from './maybe-async.ts';
import type { BlockStore, Cancel, Clock, Logger, RateLimitStore } from './ports.ts';

export interface RateState {
  /** The bucket the answer's RateLimit headers describe: the tighter of the two. */
  readonly policy: RatePolicy;
  readonly decision: RateDecision;
}

export type RateCheck =
  | ({ readonly kind: 'allowed' } & RateState)
  | ({ readonly kind: 'throttled'; readonly retryAfterSeconds: number } & RateState);

// Other processes' blocks (and the admin CLI's unblocks) are seen within this much real time.
const BLOCK_REFRESH_MS = 1000;

/**
 * v3 rate limits: a bucket per endpoint for the account and one for the client address; refusals
 * spend the address's excess bucket, and an address that empties it is blocked on every endpoint.
 */
export class RateLimits {
  /** ip -> blocked until; the block store's active blocks, kept here so the hot path reads memory. */
  private blocked = new Map<string, number>();
  private stopRefresh: Cancel | undefined;
  /** For each re-read under way: the blocks made here meanwhile, which its answer may predate. */
  private readonly madeDuringRefresh = new Set<Map<string, number>>();
  /** Moved by clear(): a re-read that started before a reset answers a list the reset emptied. */
  private generation = 0;

  constructor(
    private readonly buckets: RateLimitStore,
    private readonly blocks: BlockStore,
    private readonly clock: Clock,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.stopRefresh = this.clock.every(BLOCK_REFRESH_MS, () => {
      this.refresh().catch((error: unknown) => this.logger.error({ err: error }, 'reading IP blocks failed'));
    });
  }

  stop(): void {
    this.stopRefresh?.();
  }

  /** Whole seconds the address stays blocked, or undefined when it is not blocked. */
  blockedFor(ip: string): number | undefined {
    const until = this.blocked.get(ip);
    if (until === undefined) return undefined;
    const left = until - this.clock.now();
    if (left <= 0) {
      this.blocked.delete(ip);
      return undefined;
    }
    return retryAfterSeconds(left);
  }

  /**
   * Spends one request of the address's budget for the endpoint. Called for every request to a
   * limited endpoint as soon as it arrives, whatever its key or body turn out to be: a flood of bad
   * keys or unreadable bodies is throttled, and blocked, like any other.
   */
  checkAddress(endpoint: LimitedEndpoint, ip: string): MaybePromise<RateCheck> {
    return this.spend(`ip:${endpoint}:${ip}`, this.settings.endpoints[endpoint].ip, ip);
  }

  /** Spends one request of the address's budget for an OAuth endpoint (per address only). */
  checkOAuth(endpoint: OAuthLimitedEndpoint, ip: string): MaybePromise<RateCheck> {
    return this.spend(`ip:${endpoint}:${ip}`, this.settings.oauth[endpoint], ip);
  }

  /** Spends one request of `key`'s bucket; answered at once when the bucket store answers at once. */
  private spend(key: string, policy: RatePolicy, ip: string): MaybePromise<RateCheck> {
    const now = this.clock.now();
    return andThen(this.buckets.consume(key, policy, now), (decision) =>
      this.verdict({ policy, decision }, ip, now),
    );
  }

  /**
   * Then, once the key has named the account, spends one request of the account's budget. An address
   * already refused spends nothing more. Answers the tighter of the two buckets.
   */
  checkAccount(
    endpoint: LimitedEndpoint,
    accountId: string,
    ip: string,
    byAddress: RateCheck,
  ): MaybePromise<RateCheck> {
    if (byAddress.kind === 'throttled') return byAddress;
    const now = this.clock.now();
    const policy = this.settings.endpoints[endpoint].account;
    return andThen(this.buckets.consume(`acct:${endpoint}:${accountId}`, policy, now), (decision) =>
      decision.allowed && decision.remaining >= byAddress.decision.remaining
        ? byAddress
        : this.verdict({ policy, decision }, ip, now),
    );
  }

  /** Let through at once; a refusal first spends the address's excess (which may block it). */
  private verdict(state: RateState, ip: string, now: number): MaybePromise<RateCheck> {
    if (state.decision.allowed) return { kind: 'allowed', ...state };
    return this.recordExcess(ip, now).then(() => ({
      kind: 'throttled',
      retryAfterSeconds: retryAfterSeconds(state.decision.retryAfterMs),
      ...state,
    }));
  }

  /**
   * A refusal made past these limits, by a budget of a use case (a lock's commands, an account's test
   * events): it spends the address's excess as the limits' own refusals do.
   */
  countRefusal(ip: string): Promise<void> {
    return this.recordExcess(ip, this.clock.now());
  }

  /** Sandbox reset: no block and no bucket survives it. */
  async clear(): Promise<void> {
    for (const block of await this.blocks.listActive(Number.MIN_SAFE_INTEGER))
      await this.blocks.unblock(block.ip);
    this.generation++;
    this.blocked.clear();
    await this.buckets.clear();
  }

  private async recordExcess(ip: string, now: number): Promise<void> {
    const { block } = this.settings;
    const excess = await this.buckets.consume(`excess:${ip}`, excessPolicy(block), now);
    if (excess.allowed) return;
    const until = now + block.blockMs;
    this.blocked.set(ip, until);
    for (const made of this.madeDuringRefresh) made.set(ip, until);
    await this.blocks.block({ ip, blockedAt: now, until });
    this.logger.warn(
      { ip, until: new Date(until).toISOString() },
      'blocked a client address for repeated excess',
    );
  }

  private async refresh(): Promise<void> {
    const generation = this.generation;
    const made = new Map<string, number>();
    this.madeDuringRefresh.add(made);
    try {
      const active = await this.blocks.listActive(this.clock.now());
      if (generation !== this.generation) return;
      const blocked = new Map(active.map((b) => [b.ip, b.until]));
      // The list may have been read before a block made here meanwhile was stored: keep that block.
      for (const [ip, until] of made) if ((blocked.get(ip) ?? 0) < until) blocked.set(ip, until);
      this.blocked = blocked;
    } finally {
      this.madeDuringRefresh.delete(made);
    }
  }
}
