/**
 * Point 4 of issue 10: webhooks at 500 state changes/s. Locks are turned by hand through the
 * sandbox (POST /_sim/locks/{id} {"locked"}: relayed to `lockcloud sim`, which reports the turn
 * over the broker like a real lock) across 500 locks of 10 accounts, each account's webhook
 * pointing at a node:http receiver in this process. A change is timed from sending its sandbox
 * request to its webhook's arrival (the relay to the device and its report included). A lock is
 * turned again only once its last change was answered and delivered, so every delivery matches
 * exactly one change; a change with no lock free to take it is counted as not sent. Lost: a change
 * made whose webhook had not come 15 s after the run. Duplicated: a webhook-id seen twice, or a
 * delivery matching no change. First a light phase (50/s) shows the latency without a backlog.
 */
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from './lib/load.ts';
import { cpuSeconds } from './lib/processes.ts';
import { durations, fmtMs, fmtRate, progress, quantile, report } from './lib/report.ts';
import { startRig } from './lib/rig.ts';

const { seconds } = durations({ seconds: 6, rounds: 1 }, { seconds: 4, rounds: 1 });
const RATE = 500;
const LIGHT_RATE = 50;
// After a phase, how long changes still owed (unanswered or undelivered) are waited for.
const DRAIN_MS = 15_000;
const P99_TARGET = 20;

interface Change {
  readonly state: 'locked' | 'unlocked';
  readonly sentAt: number;
  readonly phase: Phase;
  answered: boolean;
  made: boolean;
  delivered: boolean;
}

interface Phase {
  asked: number;
  notSent: number;
  readonly changes: Change[];
  readonly latencies: number[];
  readonly sandboxTimes: number[];
  readonly refusals: Map<string, number>;
}

const pending = new Map<string, Change>();
const seenIds = new Set<string>();
let duplicates = 0;
let unmatched = 0;

const receiver = createServer((req, res) => {
  const at = performance.now();
  req.resume();
  res.writeHead(204).end();
  const id = String(req.headers['webhook-id'] ?? '');
  if (seenIds.has(id)) {
    duplicates++;
    return;
  }
  seenIds.add(id);
  const [, , deviceId, state] = (req.url ?? '').split('/');
  const change = deviceId === undefined ? undefined : pending.get(deviceId);
  if (!change || change.state !== state || change.delivered) {
    unmatched++;
    return;
  }
  change.delivered = true;
  change.phase.latencies.push(at - change.sentAt);
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const address = receiver.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;

const rig = await startRig({
  broker: 'embedded',
  accounts: 10,
  accessPointsPerAccount: 5,
  locksPerAccessPoint: 10,
  webhookUrl: `http://127.0.0.1:${port}/hook/{device_id}/{state}`,
});
// A pool, as a real driver would keep: more sockets only queue in the kernel (accept backlog) instead.
const client = new HttpClient(rig.server.url, 64);
const locked = new Map(rig.locks.map((l) => [l.deviceId, true]));

const idle = (deviceId: string): boolean => {
  const c = pending.get(deviceId);
  return !c || (c.answered && (c.delivered || !c.made));
};

let next = 0;
function turnOne(phase: Phase): void {
  phase.asked++;
  for (let tries = 0; tries < rig.locks.length; tries++) {
    const lock = rig.locks[next++ % rig.locks.length];
    if (!lock || !idle(lock.deviceId)) continue;
    const to = !(locked.get(lock.deviceId) ?? true);
    const change: Change = {
      state: to ? 'locked' : 'unlocked',
      sentAt: performance.now(),
      phase,
      answered: false,
      made: false,
      delivered: false,
    };
    pending.set(lock.deviceId, change);
    phase.changes.push(change);
    const refused = (why: string): void => {
      phase.refusals.set(why, (phase.refusals.get(why) ?? 0) + 1);
    };
    client.request('POST', `/_sim/locks/${lock.deviceId}`, {}, { locked: to }).then(
      (res) => {
        change.answered = true;
        if (res.status !== 200) return refused(`${res.status} ${res.body.slice(0, 80)}`);
        change.made = true;
        phase.sandboxTimes.push(performance.now() - change.sentAt);
        locked.set(lock.deviceId, to);
      },
      (error: Error) => {
        change.answered = true;
        refused(error.message);
      },
    );
    return;
  }
  phase.notSent++;
}

/** Asks for `rate` changes a second for `forSeconds`, then waits up to DRAIN_MS for what is owed. */
async function drive(rate: number, forSeconds: number) {
  const phase: Phase = {
    asked: 0,
    notSent: 0,
    changes: [],
    latencies: [],
    sandboxTimes: [],
    refusals: new Map(),
  };
  const cpu0 = cpuSeconds(rig.server.pid);
  const started = performance.now();
  const end = started + forSeconds * 1000;
  let issued = 0;
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    for (; issued < due; issued++) turnOne(phase);
    await sleep(1);
  }
  const wall = (performance.now() - started) / 1000;
  const serverCores = (cpuSeconds(rig.server.pid) - cpu0) / wall;
  const owed = (): boolean => phase.changes.some((c) => !c.answered || (c.made && !c.delivered));
  const drainEnd = performance.now() + DRAIN_MS;
  while (owed() && performance.now() < drainEnd) await sleep(50);
  const drained = (performance.now() - started) / 1000 - wall;
  const made = phase.changes.filter((c) => c.made).length;
  return {
    ...phase,
    wall,
    serverCores,
    drained,
    made,
    rate: made / wall,
    lost: phase.changes.filter((c) => c.made && !c.delivered).length,
    unanswered: phase.changes.filter((c) => !c.answered).length,
    refused: [...phase.refusals.entries()].map(([why, n]) => `${n}× ${why}`).join('; ') || '0',
  };
}
type PhaseResult = Awaited<ReturnType<typeof drive>>;

progress(`warming up: ${LIGHT_RATE} changes/s for 3 s`);
await drive(LIGHT_RATE, 3);
progress(`light: ${LIGHT_RATE} changes/s for ${seconds} s`);
const light = await drive(LIGHT_RATE, seconds);
progress(`${RATE} changes/s for ${seconds} s`);
const dupBefore = duplicates + unmatched;
const heavy = await drive(RATE, seconds);
const spurious = duplicates + unmatched - dupBefore;
client.close();
const profile = await rig.stop();
receiver.close();

const h = heavy;
const row = (label: string, p: PhaseResult): string[] => [
  label,
  `${p.asked} (${p.made} made, ${fmtRate(p.rate)}/s)`,
  String(p.notSent),
  `${fmtMs(quantile(p.latencies, 0.5))} / ${fmtMs(quantile(p.latencies, 0.99))}`,
  `${fmtMs(quantile(p.sandboxTimes, 0.5))} / ${fmtMs(quantile(p.sandboxTimes, 0.99))}`,
  String(p.lost),
  `${p.refused}; ${p.unanswered} unanswered`,
  `${p.drained.toFixed(1)} s`,
  `${p.serverCores.toFixed(2)} of a core`,
];
const p99 = quantile(heavy.latencies, 0.99);
report({
  name: 'webhooks',
  title: '4. Webhooks at 500 state changes/s (bench/webhooks.ts)',
  columns: [
    'asked rate',
    'changes asked (made, rate)',
    'not sent: no idle lock',
    'change → webhook p50 / p99',
    'sandbox answer p50 / p99',
    'lost',
    'sandbox refused',
    'owed changes settled after the run in',
    'server CPU',
  ],
  rows: [row(`${LIGHT_RATE}/s (light)`, light), row(`${RATE}/s`, heavy)],
  targets: [
    {
      point: '4',
      what: `change → webhook p99 at ${RATE} changes/s asked (${fmtRate(h.rate)}/s made)`,
      target: `≤ ${P99_TARGET} ms`,
      measured: fmtMs(p99),
      met: p99 <= P99_TARGET && h.rate >= 0.95 * RATE,
    },
    {
      point: '4',
      what: `webhooks lost at ${RATE}/s`,
      target: '0',
      measured: String(h.lost),
      met: h.lost === 0,
    },
    {
      point: '4',
      what: `webhooks duplicated or for no change, at ${RATE}/s`,
      target: '0',
      measured: String(spurious),
      met: spurious === 0,
    },
  ],
  notes: [
    `500 locks of 10 accounts on 50 simulated access points; each account's webhook is a POST to a node:http receiver in the bench process, which answers 204 at once. The p99 target counts as met only when at least 95% of the ${RATE}/s asked for were made.`,
    `Duplicated or unmatched deliveries over the whole run: ${duplicates} webhook-ids seen twice, ${unmatched} deliveries matching no change.`,
  ],
  sections: profile ? [profile] : [],
});
process.exit(0);
