import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gcra, type RatePolicy, retryAfterSeconds } from '../../../src/domain/rate-limit.ts';

const policy: RatePolicy = { burst: 3, intervalMs: 1_000 };

/** Runs n requests at `now` from a starting TAT; answers the decisions and the final TAT. */
function burst(n: number, now: number, tat?: number) {
  const decisions = [];
  let t = tat;
  for (let i = 0; i < n; i++) {
    const r = gcra(t, now, policy);
    decisions.push(r.decision);
    t = r.tat;
  }
  return { decisions, tat: t };
}

describe('gcra', () => {
  it('allows the burst at once, counting down what remains, then refuses with the wait', () => {
    const { decisions } = burst(4, 10_000);
    assert.deepEqual(
      decisions.map((d) => [d.allowed, d.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ],
    );
    assert.equal(decisions[3]?.retryAfterMs, 1_000);
  });

  it('a refusal costs nothing: the next request is allowed as soon as one interval has passed', () => {
    const { tat } = burst(10, 10_000);
    assert.equal(gcra(tat, 10_999, policy).decision.allowed, false);
    assert.equal(gcra(tat, 11_000, policy).decision.allowed, true);
  });

  it('never refuses a steady rate of one request per interval', () => {
    let tat: number | undefined;
    for (let i = 0; i < 3_600; i++) {
      const r = gcra(tat, 10_000 + i * 1_000, policy);
      assert.equal(r.decision.allowed, true, `request ${i}`);
      tat = r.tat;
    }
  });

  it('refills the whole burst after burst x interval of quiet', () => {
    const { tat } = burst(3, 10_000);
    assert.equal(
      burst(3, 13_000, tat).decisions.every((d) => d.allowed),
      true,
    );
  });

  it('rounds waits up to whole seconds, at least 1', () => {
    assert.equal(retryAfterSeconds(1), 1);
    assert.equal(retryAfterSeconds(1_000), 1);
    assert.equal(retryAfterSeconds(1_001), 2);
    assert.equal(retryAfterSeconds(0), 1);
  });
});
