/**
 * Issue 17, findings 7 and 10, as the outside probe ran them, against a lockcloud process of its own
 * in the sandbox with the default limits (its simulator answers every command at once):
 *
 * - 7: for 10 s of real time, v1 control moves one lock as fast as it answers (each control waits
 *   for the lock; a refusal is sent again at once), and then v3 does the same to another lock (each
 *   command waits for its task; a 429 waits its Retry-After, or the address would be blocked): how
 *   many commands each carried out and how many were refused.
 * - 10: 400 requests with bad keys to /ext from one address, 16 at a time: how many met a limit;
 *   then an address blocked through v3 asks /ext with a good key: what it gets.
 *
 * Run only when named (`npm run bench -- probe-limits`); its figures go to docs/security.md.
 */
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLockcloud, tempDir } from './lib/processes.ts';
import { progress, report } from './lib/report.ts';

const EMAIL = 'probe@example.com';
const PASSWORD = 'probe-password-0001';
const KEY = 'probe-api-key-0000000001';
const V1_LOCK = '00000000-0000-4000-8000-0000000d0001';
const V3_LOCK = '00000000-0000-4000-8000-0000000d0002';
const SECONDS = 10;
const EXT_REQUESTS = 400;
const EXT_AT_ONCE = 16;

const dir = tempDir();
const seedFile = join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [{ email: EMAIL, password: PASSWORD, verified: true }],
    api_keys: [{ account: EMAIL, key: KEY }],
    locks: [
      { device_id: V1_LOCK, serial: 'PROBE0001', nickname: 'v1 door', owner: EMAIL },
      { device_id: V3_LOCK, serial: 'PROBE0002', nickname: 'v3 door', owner: EMAIL },
    ],
  }),
);
progress('starting lockcloud (sandbox, default rate limits)');
const server = await startLockcloud(['--data', join(dir, 'data'), '--seed', seedFile]);
const base = new URL(server.url);

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: number | undefined;
}

const agents = new Map<string, Agent>();
/** One request from the client address `from` (any 127.x works on Linux loopback). */
function send(
  method: string,
  path: string,
  options: { from?: string; headers?: Record<string, string>; json?: unknown } = {},
): Promise<Answer> {
  const from = options.from ?? '127.0.0.1';
  let agent = agents.get(from);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: EXT_AT_ONCE });
    agents.set(from, agent);
  }
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers: Record<string, string | number> = { ...options.headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: base.hostname, port: Number(base.port), method, path, headers, localAddress: from },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        const retryAfter = res.headers['retry-after'];
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** [204, 204, 429] -> "2x204 1x429", in order of first appearance. */
function tally(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n}x${s}`).join(' ');
}

try {
  // Finding 7, v1: control waits for the lock, one after another, for 10 s.
  const login = await send('POST', '/v1/accounts/login', { json: { email: EMAIL, password: PASSWORD } });
  const token = (JSON.parse(login.body) as { authorization: string }).authorization;
  progress(`v1 control on one lock for ${SECONDS} s`);
  const v1: number[] = [];
  let end = performance.now() + SECONDS * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const answer = await send('POST', `/v1/locks/${V1_LOCK}/control`, {
      headers: { 'x-authorization': token },
      json: { type: i % 2 === 0 ? 'unlock' : 'lock' },
    });
    v1.push(answer.status);
  }

  // Finding 7, v3: a command, then its result until it has ended, for 10 s.
  progress(`v3 commands on another lock for ${SECONDS} s`);
  const v3: number[] = [];
  end = performance.now() + SECONDS * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const answer = await send('POST', `/public/lock/${V3_LOCK}`, {
      headers: { authorization: KEY },
      json: { command: i % 2 === 0 ? 'unlock' : 'lock' },
    });
    v3.push(answer.status);
    if (answer.status === 429) await sleep((answer.retryAfter ?? 1) * 1000);
    if (answer.status !== 200) continue;
    const { task_id } = JSON.parse(answer.body) as { task_id: string };
    // Polled gently, so that the result endpoint's own limit is never met: only commands count here.
    for (;;) {
      await sleep(20);
      const result = await send('GET', `/public/action-result?task_id=${task_id}`, {
        headers: { authorization: KEY },
      });
      if (result.status === 200 && (JSON.parse(result.body) as { status: string }).status !== 'processing')
        break;
    }
  }

  // Finding 10: 400 bad keys to /ext from one address, 16 at a time.
  progress(`${EXT_REQUESTS} requests with bad keys to /ext`);
  const ext: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: EXT_AT_ONCE }, async () => {
      while (next < EXT_REQUESTS) {
        const i = next++;
        const answer = await send('GET', '/ext/webhook/deliveries', {
          from: '127.0.0.2',
          headers: { authorization: `lck_bad-key-${i}` },
        });
        ext.push(answer.status);
      }
    }),
  );
  const extMs = performance.now() - started;

  // Finding 10: an address blocked through v3 (bad keys until 403), then /ext with a good key.
  progress('blocking an address through v3, then asking /ext');
  let v3Block = 0;
  for (let i = 0; i < 2_000; i++) {
    const answer = await send('GET', '/public/locks', {
      from: '127.0.0.3',
      headers: { authorization: 'bad' },
    });
    v3Block++;
    if (answer.status === 403) break;
  }
  const blockedExt = await send('GET', '/ext/webhook/deliveries', {
    from: '127.0.0.3',
    headers: { authorization: KEY },
  });

  const v1Carried = v1.filter((s) => s === 204).length;
  const v3Carried = v3.filter((s) => s === 200).length;
  report({
    name: 'probe-limits',
    title: 'Issue 17, findings 7 and 10: commands per lock and /ext limits (default limits)',
    columns: ['probe', 'requests', 'answers', 'carried out / met a limit'],
    rows: [
      [`v1 control, one lock, ${SECONDS} s`, String(v1.length), tally(v1), `${v1Carried} moves`],
      [
        `v3 command then result, another lock, ${SECONDS} s`,
        String(v3.length),
        tally(v3),
        `${v3Carried} moves`,
      ],
      [
        `/ext with bad keys, ${EXT_AT_ONCE} at a time (${extMs.toFixed(0)} ms)`,
        String(ext.length),
        tally(ext),
        `${ext.filter((s) => s === 429 || s === 403).length} refused`,
      ],
      [
        'an address blocked through v3, then /ext with a good key',
        `${v3Block} to v3, 1 to /ext`,
        `/ext: ${blockedExt.status}`,
        blockedExt.status === 403 ? 'blocked' : 'not blocked',
      ],
    ],
    targets: [],
    notes: [
      'a lockcloud process in the sandbox with the default rate limits; its simulator answers every command at once; every request from this process over loopback',
    ],
  });
} finally {
  await server.stop();
}
