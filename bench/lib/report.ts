/**
 * What every bench shares besides processes: its options (quick or full), percentiles, formatting,
 * and the JSON result scripts/bench.mjs collects into docs/benchmarks.md. A bench run on its own
 * (`node --import tsx bench/<name>.ts`) prints its table and writes no file.
 */
import { writeFileSync } from 'node:fs';

/** `npm run bench -- --quick`: shorter runs, one round; the same cases. */
export const QUICK = process.env.BENCH_QUICK === '1';
/** `--profile`: where the servers under test write their CPU profiles (node --cpu-prof), if anywhere. */
export const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || undefined;

/** Seconds of load per measured run, and how many interleaved rounds. */
export function durations(
  full: { seconds: number; rounds: number },
  quick: { seconds: number; rounds: number },
) {
  return QUICK ? quick : full;
}

/** Nearest-rank quantile of samples (q in 0..1); NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))] ?? Number.NaN;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export const fmtMs = (x: number): string =>
  Number.isFinite(x) ? `${x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)} ms` : '–';
export const fmtRate = (x: number): string =>
  Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–';
export const fmtRatio = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');
export const fmtMb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;

export interface Target {
  /** The point, e.g. "1". */
  readonly point: string;
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  /** null: a figure the issue asks for without a target. */
  readonly met: boolean | null;
}

export interface BenchResult {
  /** The file's name without .ts. */
  readonly name: string;
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly targets: readonly Target[];
  readonly notes: readonly string[];
  /** Extra markdown blocks (a profile summary), each under its title. */
  readonly sections?: readonly { readonly title: string; readonly body: string }[];
}

export function markdownTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map(line)].join('\n');
}

export const verdict = (met: boolean | null): string =>
  met === null ? '(no target)' : met ? 'met' : 'MISSED';

/** Prints the bench's table and hands the result to scripts/bench.mjs (BENCH_RESULT names the file). */
export function report(result: BenchResult): void {
  const out = [`### ${result.title}`, '', markdownTable(result.columns, result.rows), ''];
  for (const t of result.targets)
    out.push(`target ${t.point}: ${t.what} ${t.target}: ${t.measured} ${verdict(t.met)}`);
  for (const note of result.notes) out.push(`note: ${note}`);
  for (const section of result.sections ?? []) out.push('', `#### ${section.title}`, '', section.body);
  process.stdout.write(`${out.join('\n')}\n`);
  const file = process.env.BENCH_RESULT;
  if (file) writeFileSync(file, JSON.stringify(result, null, 2));
}

/** Progress lines go to stderr so the table stays readable. */
export function progress(message: string): void {
  process.stderr.write(`  .. ${message}\n`);
}
