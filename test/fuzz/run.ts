/**
 * Runs the fuzzer: rounds of fast-check runs against one FuzzTarget until `count` requests have been
 * sent. A round stops at its first broken answer, which fast-check shrinks to a small request; the
 * failure is kept with the round's seed and the counterexample's path (to replay it exactly), and the
 * next round goes on. Counts are kept per endpoint and per status.
 */
import fc from 'fast-check';
import type { FuzzTarget } from './harness.ts';
import { type FuzzRequest, requestArbitrary } from './requests.ts';

export interface Failure {
  readonly seed: number;
  readonly path: string;
  readonly request: string;
  readonly problems: readonly string[];
  readonly answer: string;
}

export interface FuzzReport {
  readonly requests: number;
  readonly ms: number;
  readonly byEndpoint: ReadonlyMap<string, number>;
  readonly byStatus: ReadonlyMap<string, number>;
  readonly failures: readonly Failure[];
  readonly restores: number;
}

export interface FuzzOptions {
  readonly count: number;
  readonly seed: number;
  /** Runs per round: a failure ends its round early. */
  readonly roundSize?: number;
  /** Replays one counterexample: the seed and path a failure reported. */
  readonly path?: string;
  readonly progress?: (sent: number) => void;
  /** Up to this many requests at once (1: one after the other, the default). */
  readonly concurrency?: number;
  /** Only the endpoints this keeps, all from this one address (to meet the rate limits on purpose). */
  readonly only?: { readonly endpoints: (name: string) => boolean; readonly from: string };
}

/** A request as a reader can follow it: method, target, headers, the start of the body. */
export function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === undefined
      ? ''
      : ` body(${r.body.length} B)=${JSON.stringify(r.body.subarray(0, 200).toString('latin1'))}`;
  const headers = r.headers.map(
    ([n, v]) => `${n}: ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v)}`,
  );
  const target = r.target.length > 200 ? `${r.target.slice(0, 200)}…(${r.target.length})` : r.target;
  return `[${r.via} from ${r.from}${r.framing === 'length' ? '' : `, ${r.framing}`}] ${r.method} ${target} {${headers.join('; ')}}${body}`;
}

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const { only } = options;
  const arbitrary = only
    ? requestArbitrary(
        target.endpoints.filter((e) => only.endpoints(e.name)),
        { from: only.from },
      )
    : requestArbitrary(target.endpoints);
  const byEndpoint = new Map<string, number>();
  const byStatus = new Map<string, number>();
  const failures: Failure[] = [];
  const roundSize = options.roundSize ?? 500;
  let sent = 0;
  let last: { request: FuzzRequest; problems: readonly string[]; answer: string } | undefined;
  // Requests side by side (`concurrency`): each run is a batch sent at once, shrunk like any array.
  const batch = fc.array(arbitrary, { minLength: 1, maxLength: options.concurrency ?? 1 });
  const property = fc.asyncProperty(batch, async (requests) => {
    const exchanges = await Promise.all(requests.map((r) => target.exchange(r)));
    let ok = true;
    for (const [i, { answer, problems }] of exchanges.entries()) {
      const generated = requests[i] as FuzzRequest;
      if (++sent % 1000 === 0) options.progress?.(sent);
      const status = answer === undefined ? 'no answer' : String(answer.status);
      byEndpoint.set(generated.endpoint, (byEndpoint.get(generated.endpoint) ?? 0) + 1);
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      if (problems.length > 0 && ok) {
        const shown =
          answer === undefined
            ? ''
            : `${answer.status} ${answer.headers['content-type'] ?? ''} ${answer.body.subarray(0, 300).toString()}`;
        const others = requests.length > 1 ? ` (one of ${requests.length} sent at once)` : '';
        last = {
          request: target.resolve(generated),
          problems: problems.map((p) => p + others),
          answer: shown,
        };
        ok = false;
      }
    }
    return ok;
  });

  const started = performance.now();
  for (let round = 0; sent < options.count; round++) {
    const seed = options.seed + round;
    const runs = Math.max(
      1,
      Math.ceil(Math.min(roundSize, options.count - sent) / (options.concurrency ?? 1)),
    );
    const path = options.path;
    const result = await fc.check(property, {
      seed,
      numRuns: path === undefined ? runs : 1,
      ...(path === undefined ? {} : { path }),
      // Shrinking re-sends smaller requests; a minute of it is plenty for a readable counterexample.
      interruptAfterTimeLimit: 60_000,
    });
    if (result.failed && last !== undefined) {
      failures.push({
        seed,
        path: result.counterexamplePath ?? '',
        request: describeRequest(last.request),
        problems: last.problems,
        answer: last.answer,
      });
    }
    last = undefined;
    if (path !== undefined) break;
  }
  return {
    requests: sent,
    ms: performance.now() - started,
    byEndpoint,
    byStatus,
    failures,
    restores: target.restores,
  };
}
