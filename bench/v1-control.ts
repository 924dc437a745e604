/**
 * Point 3 of issue 10: the v1 control round trip. POST /v1/accounts/login once, then
 * POST /v1/locks/{id}/control with X-Authorization, one after another, alternating unlock and lock,
 * on zero-latency simulated locks (`lockcloud sim`, its own process) over the embedded broker. v1
 * control answers 204 once the lock has confirmed, so each request is the whole round trip.
 */
import { HttpClient } from './lib/load.ts';
import { cpuSeconds } from './lib/processes.ts';
import { durations, fmtMs, fmtRate, progress, quantile, report } from './lib/report.ts';
import { startRig } from './lib/rig.ts';

const { seconds } = durations({ seconds: 6, rounds: 1 }, { seconds: 4, rounds: 1 });
// Issue 25, point 2 (issue 10 asked 10).
const P99_TARGET = 4;
const PASSWORD = 'bench-password-0001';

const rig = await startRig({
  broker: 'embedded',
  accounts: 1,
  accessPointsPerAccount: 1,
  locksPerAccessPoint: 10,
  password: PASSWORD,
});
const client = new HttpClient(rig.server.url, 4);
const login = await client.json<{ authorization: string }>(
  'POST',
  '/v1/accounts/login',
  {},
  {
    email: rig.email(0),
    password: PASSWORD,
  },
);
const headers = { 'x-authorization': login.authorization };

async function control(n: number): Promise<number> {
  const lock = rig.locks[n % rig.locks.length];
  const type = Math.floor(n / rig.locks.length) % 2 === 0 ? 'unlock' : 'lock';
  const t0 = performance.now();
  const res = await client.request('POST', `/v1/locks/${lock?.deviceId}/control`, headers, { type });
  if (res.status !== 204) throw new Error(`control ${type} ${lock?.deviceId}: ${res.status} ${res.body}`);
  return performance.now() - t0;
}

async function run(forSeconds: number): Promise<{ times: number[]; wall: number; serverCores: number }> {
  const times: number[] = [];
  const cpu0 = cpuSeconds(rig.server.pid);
  const started = performance.now();
  const end = started + forSeconds * 1000;
  for (let n = 0; performance.now() < end; n++) times.push(await control(n));
  const wall = (performance.now() - started) / 1000;
  return { times, wall, serverCores: (cpuSeconds(rig.server.pid) - cpu0) / wall };
}

progress('warming up for 3 s');
await run(3);
progress(`one client for ${seconds} s`);
const { times, wall, serverCores } = await run(seconds);
client.close();
const profile = await rig.stop();

const p99 = quantile(times, 0.99);
report({
  name: 'v1-control',
  title: '3. v1 control round trip (bench/v1-control.ts)',
  columns: ['case', 'controls', 'controls/s', 'p50', 'p99', 'server CPU'],
  rows: [
    [
      'POST /v1/locks/{id}/control → 204, one client, zero-latency locks, embedded broker',
      String(times.length),
      fmtRate(times.length / wall),
      fmtMs(quantile(times, 0.5)),
      fmtMs(p99),
      `${serverCores.toFixed(2)} of a core`,
    ],
  ],
  targets: [
    {
      point: '2',
      what: 'v1 control round trip p99 (zero-latency lock)',
      target: `≤ ${P99_TARGET} ms`,
      measured: fmtMs(p99),
      met: p99 <= P99_TARGET,
    },
  ],
  notes: [
    `${seconds} s of controls one after another over ${rig.locks.length} locks after a 3 s warm-up; one login before (its scrypt is not timed).`,
  ],
  sections: profile ? [profile] : [],
});
process.exit(0);
