/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`): self time per function and per module (a package
 * under node_modules, a file of src/, or node's own internals), as shares of the time the process
 * was not idle; and how that time splits between the server's duties (issue 25, point 6): each
 * sample goes to the duty of the nearest frame on its stack that has one (SPLIT), so a socket write
 * or a hash node makes for a logger, the broker or the key check counts for that duty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  readonly name: string;
  readonly share: number;
}

function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const src = /\/((?:src|bench|test)\/.*)$/.exec(url);
  return src?.[1] ?? url;
}

/**
 * The server's duties, each with the modules (moduleOf's names) whose frames do it; the first that
 * matches a frame decides. Node's own modules (but its HTTP server, counted with Fastify) and native
 * frames have none: a sample in them goes to
 * the nearest frame above that has one, and to "other" when none has (the event loop, the garbage
 * collector, timers).
 */
export const SPLIT: readonly (readonly [duty: string, test: RegExp])[] = [
  [
    'logs',
    /^(pino|pino-std-serializers|sonic-boom|thread-stream|src\/open-logger\.ts|src\/http\/request-log\.ts)$/,
  ],
  ['metrics', /^(prom-client|src\/adapters\/metrics\/.*|src\/http\/metrics-listener\.ts)$/],
  [
    'rate limits',
    /^(src\/adapters\/rate-limit\/.*|src\/app\/rate-limits\.ts|src\/app\/command-budget\.ts|src\/http\/rate-limits-hook\.ts|src\/http\/rate-limit-headers\.ts|src\/domain\/rate-limit\.ts)$/,
  ],
  [
    'auth',
    /^(src\/app\/auth\.ts|src\/app\/token-auth\.ts|src\/app\/constant-time\.ts|src\/http\/key-check\.ts|src\/http\/principal\.ts|src\/http\/route-scope\.ts|src\/domain\/(api-key|token|scope)\.ts)$/,
  ],
  ['store', /^(kysely|better-sqlite3|better-sqlite3-13|pg|pg-protocol|pg-pool|src\/adapters\/stores\/.*)$/],
  [
    'devices and broker',
    /^(aedes|aedes-.*|mqtt|mqtt-packet|qlobber|mqemitter|bl|src\/adapters\/devices\/.*|src\/device-protocol\/.*|src\/simulator\/.*)$/,
  ],
  [
    'HTTP framework',
    /^(fastify|@fastify\/.*|find-my-way|avvio|light-my-request|fast-json-stringify|fast-querystring|fast-uri|ajv|secure-json-parse)$/,
  ],
  ['routes and use cases', /^src\/(http|app|domain)\/.*$/],
];

// Node's own HTTP server (the parser's callbacks, headers, the response): Fastify's layer beneath it.
const NODE_HTTP = /^node:_http_/;

/**
 * The duty of a frame in this module (at this URL), or undefined: node's own modules but its HTTP
 * server, native code, anything else.
 */
export function dutyOf(module: string, url = ''): string | undefined {
  if (NODE_HTTP.test(url)) return 'HTTP framework';
  return SPLIT.find(([, test]) => test.test(module))?.[0];
}

function shortUrl(url: string): string {
  return url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(src|bench)\//, '$1/');
}

/**
 * `skipMs`: samples of the first milliseconds (the process starting up) are left out; `untilMs`:
 * those after it too (what follows the measured phase).
 */
export function summarizeProfile(
  file: string,
  top = 25,
  skipMs = 0,
  untilMs = Number.POSITIVE_INFINITY,
): { functions: ProfileLine[]; modules: ProfileLine[]; split: ProfileLine[]; busyUs: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const dutyOfNode = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)?.callFrame;
      const duty =
        frame && frame.url !== '' ? dutyOf(moduleOf(frame.url, frame.functionName), frame.url) : undefined;
      if (duty !== undefined) return duty;
    }
    return 'other (event loop, timers, garbage collector)';
  };
  const selfByNode = new Map<number, number>();
  let at = 0; // microseconds since the profile started
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < skipMs * 1000 || at > untilMs * 1000) return;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  const duties = new Map<string, number>();
  let busy = 0;
  for (const [id, time] of selfByNode) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    busy += time;
    const name = `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + time);
    const mod = moduleOf(frame.url, frame.functionName);
    modules.set(mod, (modules.get(mod) ?? 0) + time);
    const duty = dutyOfNode(id);
    duties.set(duty, (duties.get(duty) ?? 0) + time);
  }
  const rank = (m: Map<string, number>): ProfileLine[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => ({ name, share: time / busy }));
  return {
    functions: rank(functions),
    modules: rank(modules),
    split: rank(duties),
    busyUs: busy,
  };
}

/** The one .cpuprofile node wrote into `dir`. */
export function profileIn(dir: string): string | undefined {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  return file === undefined ? undefined : join(dir, file);
}

/**
 * The markdown section of the profile node wrote into `dir`: top functions and modules by self time,
 * leaving out the first `skipMs` (the server starting up, when given) and what follows `untilMs`.
 */
export function profileSection(
  dir: string,
  title: string,
  skipMs = 0,
  untilMs = Number.POSITIVE_INFINITY,
  /** What the profiled window served (requests, commands), for the CPU microseconds of each. */
  per?: { readonly count: number; readonly unit: string },
): { title: string; body: string } {
  const file = profileIn(dir);
  if (file === undefined) return { title, body: `No .cpuprofile was written in ${dir}.` };
  const { functions, modules, split, busyUs } = summarizeProfile(file, 20, skipMs, untilMs);
  const each = per !== undefined && per.count > 0 ? busyUs / per.count : undefined;
  const us = (share: number): string => (each === undefined ? '' : ` ${(share * each).toFixed(0)} |`);
  const window = Number.isFinite(untilMs)
    ? `from ${(skipMs / 1000).toFixed(1)} s to ${(untilMs / 1000).toFixed(1)} s of its life (the measured phase)`
    : skipMs > 0
      ? `after its first ${(skipMs / 1000).toFixed(1)} s (start-up left out)`
      : 'start-up included';
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  return {
    title,
    body: [
      `${file}: self time as a share of the time the server was not idle, ${window}.`,
      '',
      '| self | function |',
      '|---|---|',
      ...functions.map((f) => `| ${pct(f.share)} | \`${f.name.replace(/\|/g, '\\|')}\` |`),
      '',
      '| self | module |',
      '|---|---|',
      ...modules.map((m) => `| ${pct(m.share)} | ${m.name} |`),
      '',
      each === undefined || per === undefined
        ? 'Where the time went, by duty (each sample to the nearest frame on its stack that has one):'
        : `Where the time went, by duty (each sample to the nearest frame on its stack that has one): ${each.toFixed(0)} µs of server CPU per ${per.unit} in all, over ${per.count} ${per.unit}s.`,
      '',
      each === undefined ? '| share | duty |' : `| share | µs per ${per?.unit} | duty |`,
      each === undefined ? '|---|---|' : '|---|---|---|',
      ...split.map((d) => `| ${pct(d.share)} |${us(d.share)} ${d.name} |`),
    ].join('\n'),
  };
}
