/**
 * Issue 17, point 4: how late another tenant's webhook arrives while one tenant attacks the
 * dispatcher. Account A queues 240 messages to 8 receivers on one host (8 ports) that never
 * answer, so each of its attempts lasts the whole default timeout (5 s), and floods test events on
 * top; account B's lock is then unlocked and locked again, one change at a time, each timed from
 * sending its sandbox request (POST /_sim/locks/{id}, relayed to the simulated lock, whose report
 * is the change) to the arrival of B's webhook at B's receiver. The same changes are timed first
 * without the attack: the baseline, in the same run.
 *
 * The server is a lockcloud process of its own in the sandbox (its simulator plays the locks), with
 * the default rate limits (but room to set the webhook and read its log, which the setup does 48
 * times in a second or two) and the default webhook timeout; every receiver is a node:http server in
 * this process on 127.0.0.1, B's included (so B shares A's receiver host).
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Seed } from '../src/app/seed/schema.ts';
import { HttpClient } from './lib/load.ts';
import { startLockcloud, tempDir } from './lib/processes.ts';
import { fmtMs, fmtRatio, progress, QUICK, quantile, report } from './lib/report.ts';

const SAMPLES = QUICK ? 50 : 200;
const WARM_UP = 20;
const PORTS = 8;
const LOCKS_PER_PORT = 5;
const ROUNDS = 6; // 240 messages
const FLOOD = 45;
const TARGET_MS = 250;
// A change whose webhook has not come after this long is counted as this long (and as missed).
const GIVE_UP_MS = 60_000;

const A = 'attacker@example.com';
const B = 'bystander@example.com';
const A_KEY = 'bench-fairness-key-a';
const B_LOCK = '00000000-0000-4000-8000-0000000b0001';
const lockOf = (port: number, i: number) =>
  `00000000-0000-4000-8000-0000000a${String(port).padStart(2, '0')}${String(i).padStart(2, '0')}`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// A's receivers read each request and never answer; the server's timeout ends each attempt.
const held = new Set<import('node:http').ServerResponse>();
const hanging = await Promise.all(
  Array.from({ length: PORTS }, () =>
    listen(
      createServer((req, res) => {
        req.resume();
        held.add(res);
        res.on('close', () => held.delete(res));
      }),
    ),
  ),
);
// B's receiver: answers at once and tells the bench when each message arrived.
let arrived: ((at: number) => void) | undefined;
const healthy = createServer((req, res) => {
  const at = performance.now();
  req.resume();
  res.writeHead(204).end();
  arrived?.(at);
});
const bUrl = await listen(healthy);

const dir = tempDir();
const locks: NonNullable<Seed['locks']> = [{ device_id: B_LOCK, serial: 'SERIALB001', owner: B }];
for (let port = 0; port < PORTS; port++)
  for (let i = 0; i < LOCKS_PER_PORT; i++)
    locks.push({ device_id: lockOf(port, i), serial: `SERIALA${port}${i}`, owner: A, locked: true });
const seed: Seed = {
  accounts: [
    { email: A, password: null, verified: true },
    { email: B, password: null, verified: true },
  ],
  api_keys: [{ account: A, key: A_KEY }],
  locks,
  webhooks: [{ account: B, url: `${bUrl}/b/{device_id}/{state}`, method: 'POST' }],
};
writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
const roomy = { account: { burst: 1000, per_second: 1000 }, ip: { burst: 1000, per_second: 1000 } };
writeFileSync(
  join(dir, 'rate-limits.json'),
  JSON.stringify({ endpoints: { 'PUT /ext/webhook': roomy, 'GET /ext/webhook/deliveries': roomy } }),
);
progress('starting lockcloud (sandbox, default limits and webhook timeout)');
const server = await startLockcloud([
  '--data',
  dir,
  '--seed',
  join(dir, 'seed.json'),
  '--rate-limits',
  join(dir, 'rate-limits.json'),
]);
const client = new HttpClient(server.url, 16);

let bLocked = true;
/** One change of B's lock; its webhook's arrival after the sandbox request was sent. */
async function timeB(): Promise<number> {
  bLocked = !bLocked;
  const came = new Promise<number>((resolve) => {
    arrived = resolve;
  });
  const sent = performance.now();
  const answer = await client.request('POST', `/_sim/locks/${B_LOCK}`, {}, { locked: bLocked });
  if (answer.status !== 200) throw new Error(`/_sim/locks: ${answer.status} ${answer.body}`);
  const at = await Promise.race([came, sleep(GIVE_UP_MS).then(() => Number.NaN)]);
  arrived = undefined;
  return Number.isNaN(at) ? GIVE_UP_MS : at - sent;
}

async function phase(what: string): Promise<number[]> {
  progress(`${what}: ${SAMPLES} changes of B's lock after ${WARM_UP} not counted`);
  for (let i = 0; i < WARM_UP; i++) await timeB();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await timeB());
  return samples;
}

const quiet = await phase('baseline, no attack');

progress("the attack: A's 240 messages to 8 hanging ports of one host, and a test-event flood");
const auth = { authorization: A_KEY };
const logLength = async () =>
  (await client.json<unknown[]>('GET', '/ext/webhook/deliveries?limit=500', auth)).length;
let made = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (let port = 0; port < PORTS; port++) {
    await client.json('PUT', '/ext/webhook', auth, { url: `${hanging[port]}/a/{device_id}/{state}` });
    for (let i = 0; i < LOCKS_PER_PORT; i++) {
      const answer = await client.request(
        'POST',
        `/_sim/locks/${lockOf(port, i)}`,
        {},
        { locked: round % 2 === 1 },
      );
      if (answer.status !== 200) throw new Error(`/_sim/locks: ${answer.status} ${answer.body}`);
      made++;
    }
    // The URL is read when a message is made: the next port only once these are in the log.
    while ((await logLength()) < made) await sleep(5);
  }
}
const flood = { accepted: 0, throttled: 0 };
for (let i = 0; i < FLOOD; i++) {
  const answer = await client.request('POST', '/ext/webhook/test', auth);
  if (answer.status === 202) flood.accepted++;
  else if (answer.status === 429) flood.throttled++;
}
while (held.size === 0) await sleep(5);
const heldAtStart = held.size;

const attacked = await phase('under the attack');
const heldAtEnd = held.size;
client.close();
await server.stop();
for (const s of [healthy]) s.close();

const row = (what: string, xs: number[]) => [
  what,
  String(xs.length),
  fmtMs(quantile(xs, 0.5)),
  fmtMs(quantile(xs, 0.99)),
  fmtMs(Math.max(...xs)),
  String(xs.filter((x) => x > TARGET_MS).length),
];
const p99 = quantile(attacked, 0.99);
report({
  name: 'webhook-fairness',
  title: "17.4. Another tenant's webhook while one tenant attacks the dispatcher (bench/webhook-fairness.ts)",
  columns: ['B’s change → B’s webhook', 'changes', 'p50', 'p99', 'max', `over ${TARGET_MS} ms`],
  rows: [
    row('no attack (baseline)', quiet),
    row('A: 240 messages to 8 hanging ports of one host, and a flood', attacked),
    ['p99 under attack / baseline p99', '', '', fmtRatio(p99 / quantile(quiet, 0.99)), '', ''],
  ],
  targets: [
    {
      point: '17.4',
      what: "another account's webhook under the attack, p99 from its change",
      target: `≤ ${TARGET_MS} ms`,
      measured: fmtMs(p99),
      met: p99 <= TARGET_MS,
    },
  ],
  notes: [
    `A's receivers held ${heldAtStart} requests when B's changes began and ${heldAtEnd} at the end (A's places at its one receiver host); each of A's attempts lasts the 5 s timeout.`,
    `The flood: ${FLOOD} test events asked, ${flood.accepted} accepted, ${flood.throttled} answered 429 (the per-account budget of test events and resends).`,
    'Before the fix (issue 17), the same attack held every one of the process’s 32 places (4 per host:port, 8 ports) and B’s webhook came 30.4 s after its change.',
  ],
});
process.exit(0);
