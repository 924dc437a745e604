import {
  excessPolicy,
  type LimitedEndpoint,
  type RateDecision,
  type RateLimitSettings,
  type RatePolicy,
  retryAfterSeconds,
} from '../domain/rate-limit.ts';
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

  /** Spends one request of the address's (and, when known, the account's) budget for the endpoint. */
  async check(endpoint: LimitedEndpoint, accountId: string | undefined, ip: string): Promise<RateCheck> {
    const limits = this.settings.endpoints[endpoint];
    const now = this.clock.now();
    const byIp = await this.buckets.consume(`ip:${endpoint}:${ip}`, limits.ip, now);
    let tighter: RateState = { policy: limits.ip, decision: byIp };
    if (byIp.allowed && accountId !== undefined) {
      const byAccount = await this.buckets.consume(`acct:${endpoint}:${accountId}`, limits.account, now);
      if (!byAccount.allowed || byAccount.remaining < byIp.remaining) {
        tighter = { policy: limits.account, decision: byAccount };
      }
    }
    if (tighter.decision.allowed) return { kind: 'allowed', ...tighter };
    await this.recordExcess(ip, now);
    return {
      kind: 'throttled',
      retryAfterSeconds: retryAfterSeconds(tighter.decision.retryAfterMs),
      ...tighter,
    };
  }

  /** Sandbox reset: no block and no bucket survives it. */
  async clear(): Promise<void> {
    for (const block of await this.blocks.listActive(Number.MIN_SAFE_INTEGER))
      await this.blocks.unblock(block.ip);
    this.blocked.clear();
    await this.buckets.clear();
  }

  private async recordExcess(ip: string, now: number): Promise<void> {
    const { block } = this.settings;
    const excess = await this.buckets.consume(`excess:${ip}`, excessPolicy(block), now);
    if (excess.allowed) return;
    const until = now + block.blockMs;
    this.blocked.set(ip, until);
    await this.blocks.block({ ip, blockedAt: now, until });
    this.logger.warn(
      { ip, until: new Date(until).toISOString() },
      'blocked a client address for repeated excess',
    );
  }

  private async refresh(): Promise<void> {
    const active = await this.blocks.listActive(this.clock.now());
    this.blocked = new Map(active.map((b) => [b.ip, b.until]));
  }
}
