/**
 * `npm run fuzz [-- --count N] [-- --seed S] [-- --path P]`: the long form of test/fuzz (issue 11):
 * 100,000 generated requests by default against a real lockcloud, then the counts per endpoint and
 * per status, every broken answer with the seed and path that replay it, and exit 1 if there was one.
 */
import { parseArgs } from 'node:util';
import { FuzzTarget } from '../test/fuzz/harness.ts';
import { type FuzzReport, runFuzz } from '../test/fuzz/run.ts';

const USAGE = `usage: npm run fuzz -- [--count N] [--seed S] [--path P] [--concurrency C]
  --count N  requests to send (default 100000)
  --seed S   fast-check seed of the first round (default: the time); round k uses S + k
  --path P   with --seed (and the same --concurrency): replay the one counterexample a failure reported
  --concurrency C  up to C requests at once (default 1: one after the other)`;

function table(title: string, counts: ReadonlyMap<string, number>): string {
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  const width = Math.max(...rows.map(([k]) => k.length), title.length);
  return [title, ...rows.map(([k, n]) => `  ${k.padEnd(width)}  ${String(n).padStart(7)}`)].join('\n');
}

function print(report: FuzzReport, seed: number, concurrency: number): void {
  const seconds = report.ms / 1000;
  console.log(
    `\n${report.requests} requests in ${seconds.toFixed(1)} s (${Math.round(report.requests / seconds)}/s), seed ${seed}, ${report.restores} sandbox restores`,
  );
  console.log(table('per endpoint', report.byEndpoint));
  console.log(table('per status', report.byStatus));
  console.log(`\n${report.failures.length} failure(s)`);
  for (const f of report.failures) {
    console.log(`\n- ${f.problems.join('; ')}\n  request: ${f.request}\n  answer: ${f.answer}`);
    const c = concurrency > 1 ? ` --concurrency ${concurrency}` : '';
    console.log(`  replay: npm run fuzz -- --seed ${f.seed} --path ${f.path}${c}`);
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      seed: { type: 'string' },
      path: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const count = Number(values.count ?? 100_000);
  const seed = Number(values.seed ?? Date.now() % 2 ** 31);
  const concurrency = Number(values.concurrency ?? 1);
  const bad = !Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || !(concurrency >= 1);
  if (bad || (values.path && !values.seed)) {
    console.error(USAGE);
    return 2;
  }
  const target = await FuzzTarget.start();
  try {
    const started = Date.now();
    const report = await runFuzz(target, {
      count,
      seed,
      concurrency,
      ...(values.path === undefined ? {} : { path: values.path }),
      progress: (sent) => console.log(`${sent} requests, ${Math.round((Date.now() - started) / 1000)} s`),
    });
    const dead = await target.stillAlive();
    print(report, seed, concurrency);
    for (const problem of dead) console.log(`after the run: ${problem}`);
    return report.failures.length > 0 || dead.length > 0 ? 1 : 0;
  } finally {
    await target.close();
  }
}

process.exitCode = await main();
