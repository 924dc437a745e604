/**
 * What scrubbing secret settings out of the log costs each line (issue 17 point 11): the server's
 * logger (src/open-logger.ts) writing a request-completed line, with no secret setting (no hook, the
 * baseline) and with a database, Redis and broker URL and the server key set (every line searched
 * for them). Interleaved rounds, medians; the lines go to a sink, not a disk.
 */
import { Writable } from 'node:stream';
import { loadConfig } from '../src/config/config.ts';
import { openLogger } from '../src/open-logger.ts';
import { fmtRate, fmtRatio, median, QUICK, report } from './lib/report.ts';

const ROUNDS = QUICK ? 3 : 7;
const ROUND_MS = QUICK ? 300 : 1000;

const sink = (): Writable =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });
const plain = openLogger(loadConfig({}, []), sink());
const scrubbed = openLogger(
  loadConfig(
    {
      DATABASE_URL: 'postgres://lockcloud:db-password-123@db:5432/lockcloud',
      REDIS_URL: 'rediss://default:redis-password-456@cache:6380',
      MQTT_URL: 'mqtt://cloud-1:broker-password-789@broker:1883',
      LOCKCLOUD_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'),
    },
    [],
  ),
  sink(),
);

/** What Fastify logs for every request. */
const requestLine = (i: number) => ({
  reqId: `req-${i.toString(36)}`,
  res: { statusCode: 200 },
  responseTime: 1.234,
  req: {
    method: 'GET',
    url: '/public/lock/00000000-0000-4000-8000-00000000000a',
    host: '127.0.0.1:8080',
    remoteAddress: '127.0.0.1',
    remotePort: 50_000 + (i % 1000),
  },
});

function round(logger: typeof plain): number {
  const started = performance.now();
  const end = started + ROUND_MS;
  let n = 0;
  for (; performance.now() < end; n++) logger.info(requestLine(n), 'request completed');
  return (n / (performance.now() - started)) * 1000;
}

round(plain);
round(scrubbed);
const plainRates: number[] = [];
const scrubbedRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  plainRates.push(round(plain));
  scrubbedRates.push(round(scrubbed));
}
const base = median(plainRates);
const withScrub = median(scrubbedRates);
report({
  name: 'log-scrub',
  title: 'Scrubbing secret settings out of each log line (bench/log-scrub.ts)',
  columns: ['request log line', `lines/s (median of ${ROUNDS})`, 'ratio'],
  rows: [
    ['no secret setting: no hook (baseline)', fmtRate(base), '1.00'],
    [
      'database, Redis and broker URLs and the server key set',
      fmtRate(withScrub),
      fmtRatio(withScrub / base),
    ],
  ],
  targets: [],
  notes: [
    `The server's own logger (src/open-logger.ts) into a sink, ${ROUND_MS} ms a round, rounds interleaved: one regex pass over each finished line, and a second only for lines holding "://".`,
  ],
});
process.exit(0);
