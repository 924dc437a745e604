import type { Metric } from 'prom-client';

type Label = 'method' | 'route' | 'status_code' | 'le';

/** One line of the exposition, as prom-client's registry reads it from a metric's `get()`. */
interface ValueLine {
  readonly labels: Partial<Record<Label, string | number>>;
  readonly value: number;
  readonly metricName: string;
}

interface Series {
  readonly labels: { readonly method: string; readonly route: string; readonly status_code: string };
  /** Observations per bucket (not cumulative); the last slot is past the highest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, the one metric every request records. prom-client's
 * `Histogram.observe` builds a labels object, a closure and a hash string and turns the bucket bound
 * into a property name on every call: about a tenth of a cached read's CPU (issue 25). This keeps the
 * same series in maps keyed by the label values themselves (no allocation once a series exists) and
 * hands prom-client's registry, at scrape time, the values a prom-client Histogram would: the same
 * text, line for line (test/unit/adapters/request-durations.test.ts holds it to that).
 */
export class RequestDurations {
  // prom-client's registry reads these strings (its typings say a numeric enum; its code, strings).
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** method -> route -> status code -> series. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();
  /** The same series in the order they first happened: the order prom-client exposes them in. */
  private readonly ordered: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {}

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byRoute = this.series.get(method);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.series.set(method, byRoute);
    }
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      byRoute.set(route, byStatus);
    }
    let series = byStatus.get(statusCode);
    if (series === undefined) {
      series = {
        labels: { method, route, status_code: String(statusCode) },
        counts: new Float64Array(this.buckets.length + 1),
        sum: 0,
        count: 0,
      };
      byStatus.set(statusCode, series);
      this.ordered.push(series);
    }
    let bucket = 0;
    while (bucket < this.buckets.length && !(seconds <= (this.buckets[bucket] as number))) bucket++;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The registry's view, in a prom-client Histogram's order: each series' buckets, +Inf, sum, count. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ValueLine[] }> {
    const values: ValueLine[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, counts, sum, count } of this.ordered) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucketName });
      values.push({ labels: { ...labels }, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...labels }, value: count, metricName: `${this.name}_count` });
    }
    const { name, help, type, aggregator } = this;
    return Promise.resolve({ name, help, type, aggregator, values });
  }

  reset(): void {
    this.series.clear();
    this.ordered.length = 0;
  }

  /**
   * What the registry takes: its `registerMetric` is typed for prom-client's own classes, but it
   * reads only `name`, `get()` and `reset()` (prom-client 15's registry.js).
   */
  asMetric(): Metric<Label> {
    return this as unknown as Metric<Label>;
  }
}
