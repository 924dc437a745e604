/**
 * The v3 limits use case (src/app/rate-limits.ts) over the memory store, a manual clock and a block
 * store whose reads can be held: how blocks made here and the periodic re-read of the shared block
 * list (other processes' blocks, the admin CLI's unblocks) interleave.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../src/adapters/rate-limit/memory.ts';
import type { BlockStore, Cancel, Clock } from '../../src/app/ports.ts';
import { RateLimits } from '../../src/app/rate-limits.ts';
import type { IpBlock } from '../../src/domain/rate-limit.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../../src/domain/rate-limit.ts';
import { ManualClock } from '../support/manual-clock.ts';

const ENDPOINT = 'GET /public/locks';
const IP = '192.0.2.1';

// One request at once per address; the second refusal within a minute blocks for 30 minutes.
const SETTINGS: RateLimitSettings = {
  endpoints: {
    ...DEFAULT_RATE_LIMITS.endpoints,
    [ENDPOINT]: { account: { burst: 100, intervalMs: 10 }, ip: { burst: 1, intervalMs: 1_000 } },
  },
  oauth: { ...DEFAULT_RATE_LIMITS.oauth, 'POST /oauth/token': { burst: 1, intervalMs: 1_000 } },
  commands: DEFAULT_RATE_LIMITS.commands,
  block: { excess: 1, windowMs: 60_000, blockMs: 30 * 60_000 },
};

/** Blocks in memory; after hold(), the next read sees the blocks of its start but answers on letGo(). */
class HeldBlockStore implements BlockStore {
  blocks = new Map<string, IpBlock>();
  private release: (() => void) | undefined;
  private held: Promise<void> | undefined;

  hold(): void {
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  letGo(): void {
    this.release?.();
  }

  async block(b: IpBlock): Promise<void> {
    this.blocks.set(b.ip, b);
  }

  async listActive(now: number): Promise<IpBlock[]> {
    const seen = [...this.blocks.values()].filter((b) => b.until > now);
    // Only the next read is held.
    const held = this.held;
    this.held = undefined;
    await held;
    return seen;
  }

  async unblock(ip: string): Promise<boolean> {
    return this.blocks.delete(ip);
  }

  async purgeEndedBefore(): Promise<number> {
    return 0;
  }
}

/** A manual clock whose real-time polling runs when the test says. */
class PolledClock implements Clock {
  private readonly time = new ManualClock();
  private polls: (() => void)[] = [];
  now(): number {
    return this.time.now();
  }
  at(when: number, fn: () => void): Cancel {
    return this.time.at(when, fn);
  }
  every(_intervalMs: number, fn: () => void): Cancel {
    this.polls.push(fn);
    return () => {
      this.polls = this.polls.filter((p) => p !== fn);
    };
  }
  advance(ms: number): void {
    this.time.advance(ms);
  }
  poll(): void {
    for (const fn of this.polls) fn();
  }
}

const silent = { info() {}, warn() {}, error() {} };
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function setup() {
  const clock = new PolledClock();
  const blocks = new HeldBlockStore();
  const limits = new RateLimits(new MemoryRateLimitStore(), blocks, clock, SETTINGS, silent);
  await limits.start();
  return { clock, blocks, limits };
}

async function floodUntilBlocked(limits: RateLimits): Promise<void> {
  for (let i = 0; i < 5 && limits.blockedFor(IP) === undefined; i++) await limits.checkAddress(ENDPOINT, IP);
  assert.ok(limits.blockedFor(IP) !== undefined, 'not blocked after 5 requests');
}

describe('RateLimits: the OAuth endpoints', () => {
  it('limit per address, refill with time, and their refusals lead to the same block', async () => {
    const { clock, limits } = await setup();
    assert.equal((await limits.checkOAuth('POST /oauth/token', IP)).kind, 'allowed');
    // Another address, and another OAuth endpoint, have budgets of their own.
    assert.equal((await limits.checkOAuth('POST /oauth/token', '192.0.2.2')).kind, 'allowed');
    assert.equal((await limits.checkOAuth('POST /oauth/token/revocation', IP)).kind, 'allowed');
    const refused = await limits.checkOAuth('POST /oauth/token', IP);
    assert.deepEqual(
      [refused.kind, refused.kind === 'throttled' && refused.retryAfterSeconds],
      ['throttled', 1],
    );
    clock.advance(1_000);
    assert.equal((await limits.checkOAuth('POST /oauth/token', IP)).kind, 'allowed');
    assert.equal(limits.blockedFor(IP), undefined);
    // The second refusal within the window (excess 1) blocks the address everywhere.
    await limits.checkOAuth('POST /oauth/token', IP);
    assert.equal(limits.blockedFor(IP), 1_800);
  });
});

describe('RateLimits: blocks and the periodic re-read of the block store', () => {
  it('blocks after the excess, for 30 minutes, and the block store holds it', async () => {
    const { clock, blocks, limits } = await setup();
    await floodUntilBlocked(limits);
    assert.equal(limits.blockedFor(IP), 1_800);
    assert.equal(blocks.blocks.get(IP)?.until, clock.now() + 1_800_000);
    clock.advance(1_799_000);
    assert.equal(limits.blockedFor(IP), 1);
    clock.advance(1_000);
    assert.equal(limits.blockedFor(IP), undefined);
    limits.stop();
  });

  it('a block made while a re-read is under way is not lost when the re-read answers', async () => {
    const { clock, blocks, limits } = await setup();
    blocks.hold();
    clock.poll(); // the re-read starts and sees no block
    await settle();
    await floodUntilBlocked(limits);
    blocks.letGo(); // ... and answers after the block was made
    await settle();
    assert.equal(limits.blockedFor(IP), 1_800, 'the block vanished until the next re-read');
    limits.stop();
  });

  it("sees another process's block and the admin CLI's unblock at the next re-read", async () => {
    const { clock, blocks, limits } = await setup();
    await blocks.block({ ip: IP, blockedAt: clock.now(), until: clock.now() + 60_000 });
    assert.equal(limits.blockedFor(IP), undefined);
    clock.poll();
    await settle();
    assert.equal(limits.blockedFor(IP), 60);
    await blocks.unblock(IP);
    clock.poll();
    await settle();
    assert.equal(limits.blockedFor(IP), undefined);
    limits.stop();
  });

  it('a sandbox reset during a re-read is not undone by the re-read answering', async () => {
    const { clock, blocks, limits } = await setup();
    await floodUntilBlocked(limits);
    blocks.hold();
    clock.poll(); // the re-read starts and sees the block
    await settle();
    await limits.clear();
    blocks.letGo();
    await settle();
    assert.equal(limits.blockedFor(IP), undefined, 'the reset block came back');
    assert.equal((await limits.checkAddress(ENDPOINT, IP)).kind, 'allowed');
    limits.stop();
  });
});
