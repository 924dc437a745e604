/**
 * Issue 21, "Measured": 1,000 concurrent stream clients on one process receive a change within
 * 50 ms p99 at 200 changes/s, and none misses or repeats an event.
 *
 * One lockcloud process (sandbox) with 1,000 accounts, each with an API key and a lock on an access
 * point of its own; each account holds one `GET /ext/events/stream?type=lock.` open from this
 * process (1,000 sockets). Run twice, once per layout of the simulated devices:
 *
 * - separate: `lockcloud sim --seed` plays the 1,000 access points in a process of its own, over the
 *   server's embedded broker, and the server runs with --no-simulator. Real devices do not run in
 *   the cloud's process; this is the layout the target is held to.
 * - in-process: the server's own simulator plays them, in the server's event loop (the 1,000 MQTT
 *   clients' work is the server's too). Kept for comparison with the first figures.
 *
 * Changes are made at 200/s, spread over the locks in turn, as hand turns through the sandbox (`POST /_sim/locks/{id}`: the simulated lock moves and reports it, which is
 * a `lock.locked` or `lock.unlocked` event). Each change's delay is timed from sending its sandbox
 * request to the arrival of its event at its account's stream (so it includes the simulated
 * device's report and the commit, not only the stream's part).
 *
 * At the end each stream's events are compared with what GET /ext/events lists for its lock: every
 * event once, in order, none missing. Rate limits are off (`--no-rate-limit`): 200 sandbox requests
 * a second would otherwise be refused, which is not what is measured. The 1,000 simulated access
 * points (one per account) connect from loopback, past the default per-address connection limit.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Seed } from '../src/app/seed/schema.ts';
import { HttpClient } from './lib/load.ts';
import { cpuSeconds, type Proc, startLockcloud, startSim, tempDir, until } from './lib/processes.ts';
import { profileSection } from './lib/profile.ts';
import { fmtMs, PROFILE_DIR, progress, QUICK, quantile, report, type Target } from './lib/report.ts';

const CLIENTS = 1_000;
const RATE = 200;
const SECONDS = QUICK ? 8 : 20;
const TARGET_P99_MS = 50;

type Layout = 'in-process' | 'separate';
const LAYOUTS: readonly Layout[] = ['separate', 'in-process'];

const lockOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const apOf = (i: number) => `a0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const keyOf = (i: number) => `bench-stream-key-${String(i).padStart(6, '0')}`;
const emailOf = (i: number) => `streamer${i}@example.com`;

/**
 * The world of one run. `separate`: each lock on an access point of the seed with a known secret,
 * for `lockcloud sim --seed`; `in-process`: on the access point the seed makes for it, which the
 * server's simulator plays (the same one access point per lock).
 */
function seedOf(layout: Layout): Seed {
  return {
    accounts: Array.from({ length: CLIENTS }, (_, i) => ({
      email: emailOf(i),
      password: null,
      verified: true,
    })),
    api_keys: Array.from({ length: CLIENTS }, (_, i) => ({ account: emailOf(i), key: keyOf(i) })),
    ...(layout === 'separate'
      ? {
          access_points: Array.from({ length: CLIENTS }, (_, i) => ({
            id: apOf(i),
            account: emailOf(i),
            name: `AP ${i}`,
            secret: `bench-stream-ap-secret-${String(i).padStart(6, '0')}`,
          })),
        }
      : {}),
    locks: Array.from({ length: CLIENTS }, (_, i) => ({
      device_id: lockOf(i),
      serial: `SERIAL${String(i).padStart(6, '0')}`,
      owner: emailOf(i),
      locked: true,
      ...(layout === 'separate' ? { access_point_id: apOf(i) } : {}),
    })),
  };
}

interface Received {
  readonly id: string;
  readonly at: number;
}

interface RunResult {
  readonly row: string[];
  readonly p99: number;
  readonly faults: number;
  readonly notes: string[];
  readonly section: { title: string; body: string } | undefined;
}

async function run(layout: Layout): Promise<RunResult> {
  const dir = tempDir();
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seedOf(layout)));
  progress(`${layout}: starting lockcloud (sandbox, ${CLIENTS} accounts, keys and locks, rate limits off)`);
  if (PROFILE_DIR !== undefined) mkdirSync(PROFILE_DIR, { recursive: true });
  const profileDir =
    PROFILE_DIR === undefined ? undefined : mkdtempSync(join(PROFILE_DIR, `events-stream-${layout}-`));
  // 1,000 access points on loopback: more than the broker lets one address hold by default (500).
  const spawned = performance.now();
  const server = await startLockcloud(
    [
      '--data',
      join(dir, 'data'),
      '--seed',
      seedFile,
      '--no-rate-limit',
      '--mqtt-max-connections-per-address',
      String(CLIENTS + 100),
      ...(layout === 'separate' ? ['--no-simulator'] : []),
    ],
    { nodeFlags: profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir] },
  );
  const url = new URL(server.url);
  const client = new HttpClient(server.url, 64);
  let sim: Proc | undefined;
  if (layout === 'separate') {
    progress(`${layout}: starting lockcloud sim with ${CLIENTS} access points`);
    sim = startSim(seedFile, server.mqttUrl);
    await sim.waitFor(/connected to/, 120_000, 'lockcloud sim to connect');
    const sample = Array.from({ length: 50 }, (_, k) => k * (CLIENTS / 50));
    await until('the simulated locks to read responsive', 120_000, async () => {
      const states = await Promise.all(
        sample.map((i) =>
          client.json<{ responsive: boolean }>('GET', `/public/lock/${lockOf(i)}`, {
            authorization: keyOf(i),
          }),
        ),
      );
      return states.every((s) => s.responsive);
    });
  }

  const received: Received[][] = Array.from({ length: CLIENTS }, () => []);
  /** When each lock's pending change was sent; an event's arrival takes its time from here. */
  const sentAt: (number | undefined)[] = new Array(CLIENTS).fill(undefined);
  const delays: number[] = [];
  let unexpected = 0;
  let closedEarly = 0;

  /** One stream, parsed line by line (the wire format of docs/events.md). */
  const openStream = (i: number, agent: Agent): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: Number(url.port),
          path: '/ext/events/stream?type=lock.',
          headers: { authorization: keyOf(i), accept: 'text/event-stream' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`stream ${i}: ${res.statusCode}`));
            res.resume();
            return;
          }
          resolve();
          res.setEncoding('utf8');
          let buffer = '';
          let id = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
              const line = buffer.slice(0, end);
              buffer = buffer.slice(end + 1);
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('data: ') && id !== '') {
                const at = performance.now();
                received[i]?.push({ id, at });
                const sent = sentAt[i];
                if (sent === undefined) unexpected++;
                else {
                  delays.push(at - sent);
                  sentAt[i] = undefined;
                }
                id = '';
              }
            }
          });
          res.on('end', () => {
            closedEarly++;
          });
        },
      );
      req.on('error', reject);
      req.end();
    });

  progress(`${layout}: opening ${CLIENTS} streams`);
  const agent = new Agent({ keepAlive: false, maxSockets: CLIENTS + 10 });
  for (let start = 0; start < CLIENTS; start += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, CLIENTS - start) }, (_, k) => openStream(start + k, agent)),
    );

  const locked: boolean[] = new Array(CLIENTS).fill(true);
  let made = 0;
  let skipped = 0;
  const cpuBefore = cpuSeconds(server.pid);
  const simCpuBefore = sim === undefined ? 0 : cpuSeconds(sim.pid);
  const loadBefore = loadavg()[0] ?? 0;
  progress(`${layout}: ${RATE} changes/s for ${SECONDS} s (load average ${loadBefore.toFixed(2)})`);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let n = 0; n < RATE * SECONDS; n++) {
    const due = started + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const i = n % CLIENTS;
    // A lock whose last change has not arrived yet is skipped rather than timed twice.
    if (sentAt[i] !== undefined) {
      skipped++;
      continue;
    }
    locked[i] = !locked[i];
    sentAt[i] = performance.now();
    made++;
    pending.push(
      client.request('POST', `/_sim/locks/${lockOf(i)}`, {}, { locked: locked[i] }).then((answer) => {
        if (answer.status !== 200) throw new Error(`/_sim/locks: ${answer.status} ${answer.body}`);
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  // The last changes' events: a few seconds at most.
  for (let waited = 0; waited < 10_000 && sentAt.some((s) => s !== undefined); waited += 50) await sleep(50);
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  const simCpu = sim === undefined ? undefined : cpuSeconds(sim.pid) - simCpuBefore;
  const loadAfter = loadavg()[0] ?? 0;
  // The profile covers the changes only: not the access points connecting, the streams opening, the comparison.
  const window = { from: started - spawned, to: performance.now() - spawned };
  const lost = sentAt.filter((s) => s !== undefined).length;

  progress(`${layout}: comparing every stream with the log`);
  let missing = 0;
  let repeated = 0;
  let outOfOrder = 0;
  for (let i = 0; i < CLIENTS; i++) {
    const page = await client.json<{ events: { id: string }[] }>(
      'GET',
      `/ext/events?device_id=${lockOf(i)}&type=lock.&limit=500`,
      { authorization: keyOf(i) },
    );
    const logged = page.events.map((e) => e.id);
    const got = (received[i] ?? []).map((r) => r.id);
    repeated += got.length - new Set(got).size;
    missing += logged.filter((id) => !got.includes(id)).length;
    if (JSON.stringify(got) !== JSON.stringify(logged.filter((id) => got.includes(id)))) outOfOrder++;
  }
  agent.destroy();
  client.close();
  await sim?.stop();
  await server.stop();

  const p50 = quantile(delays, 0.5);
  const p99 = quantile(delays, 0.99);
  return {
    row: [
      layout,
      String(CLIENTS),
      String(made),
      String(skipped),
      (made / elapsed).toFixed(0),
      fmtMs(p50),
      fmtMs(p99),
      fmtMs(Math.max(...delays)),
      String(missing + lost),
      String(repeated),
      String(outOfOrder),
      String(unexpected),
      `${(cpu / elapsed).toFixed(2)} of a core`,
      `${((cpu * 1000) / Math.max(1, made)).toFixed(2)} ms`,
      simCpu === undefined ? '(in the server)' : `${(simCpu / elapsed).toFixed(2)} of a core`,
      `${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}`,
    ],
    p99,
    faults: missing + lost + repeated + outOfOrder,
    notes: closedEarly === 0 ? [] : [`${layout}: ${closedEarly} streams ended early.`],
    section:
      profileDir === undefined
        ? undefined
        : profileSection(
            profileDir,
            `CPU profile of the server, ${layout} simulator`,
            window.from,
            window.to,
          ),
  };
}

const results: Record<Layout, RunResult> = {} as Record<Layout, RunResult>;
for (const layout of LAYOUTS) results[layout] = await run(layout);

const targets: Target[] = LAYOUTS.flatMap((layout): Target[] => {
  const r = results[layout];
  return [
    {
      point: '21',
      what: `a change reaches its stream (${CLIENTS} clients, ${RATE} changes/s), p99, ${layout} simulator${layout === 'separate' ? '' : ' (for comparison)'}`,
      target: `≤ ${TARGET_P99_MS} ms`,
      measured: fmtMs(r.p99),
      met: r.p99 <= TARGET_P99_MS,
    },
    {
      point: '21',
      what: `events missed, repeated or out of order over every stream, ${layout} simulator`,
      target: '0',
      measured: String(r.faults),
      met: r.faults === 0,
    },
  ];
});

report({
  name: 'events-stream',
  title: '21. The live stream: 1,000 clients at 200 changes/s (bench/events-stream.ts)',
  columns: [
    'simulated devices',
    'clients',
    'changes made',
    "skipped (the lock's last change still on its way)",
    'changes/s',
    'p50',
    'p99',
    'max',
    'missing',
    'repeated',
    'streams out of order',
    'arrived unasked',
    'server CPU',
    'server CPU per change',
    'simulator CPU',
    'load average (1 min) before / after',
  ],
  rows: LAYOUTS.map((layout) => results[layout].row),
  targets,
  notes: [
    "Delay: from sending the sandbox request that turns the lock to the event's arrival at its account's stream (the simulated device's report and the commit included).",
    "separate: `lockcloud sim --seed` plays the 1,000 access points in a process of its own over the embedded broker, the server runs with --no-simulator, as real devices are never in the cloud process; the target is held to this layout. in-process: the server's own simulator plays them in its event loop, for comparison with the first figures.",
    'The machine is shared: the load average is taken just before and after the changes.',
    ...LAYOUTS.flatMap((layout) => results[layout].notes),
  ],
  sections: LAYOUTS.flatMap((layout) => {
    const section = results[layout].section;
    return section === undefined ? [] : [section];
  }),
});
