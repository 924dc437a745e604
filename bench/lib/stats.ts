/**
 * Two-sample comparisons for timing benches: is one set of durations distinguishable from another?
 * Mann–Whitney U (rank-based: no assumption on the shape, robust to a few outliers) and a bootstrap
 * confidence interval of the difference of medians.
 */
import { seededRandom } from '../../src/simulator/behaviour.ts';
import { median } from './report.ts';

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export interface MannWhitney {
  readonly u: number;
  /** Two-sided, normal approximation with the tie correction (fine from about 20 samples a side). */
  readonly p: number;
  /** P(a sample of A > a sample of B) + half the ties: 0.5 when neither tends to be slower. */
  readonly commonLanguage: number;
}

export function mannWhitney(a: readonly number[], b: readonly number[]): MannWhitney {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(all.length);
  let tieTerm = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]?.v === all[i]?.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[k] = rank;
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    i = j + 1;
  }
  let rankSumA = 0;
  all.forEach((x, i) => {
    if (x.g === 0) rankSumA += ranks[i] ?? 0;
  });
  const n1 = a.length;
  const n2 = b.length;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const n = n1 + n2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const z = variance > 0 ? (u - mean - Math.sign(u - mean) * 0.5) / Math.sqrt(variance) : 0;
  return { u, p: Math.min(1, 2 * (1 - normalCdf(Math.abs(z)))), commonLanguage: u / (n1 * n2) };
}

/** 95% percentile-bootstrap interval of median(a) − median(b). */
export function bootstrapMedianDifference(
  a: readonly number[],
  b: readonly number[],
  resamples = 2000,
): { low: number; high: number } {
  // Seeded, so a run's intervals can be reproduced from its samples.
  const next = seededRandom(0x5eed);
  const pick = (xs: readonly number[]): number[] =>
    Array.from({ length: xs.length }, () => xs[Math.floor(next() * xs.length)] ?? Number.NaN);
  const diffs = Array.from({ length: resamples }, () => median(pick(a)) - median(pick(b))).sort(
    (x, y) => x - y,
  );
  return {
    low: diffs[Math.floor(resamples * 0.025)] ?? Number.NaN,
    high: diffs[Math.ceil(resamples * 0.975) - 1] ?? Number.NaN,
  };
}
