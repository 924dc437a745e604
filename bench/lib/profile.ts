/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`): self time per function and per module (a package
 * under node_modules, a file of src/, or node's own internals), as shares of the time the process
 * was not idle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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
): { functions: ProfileLine[]; modules: ProfileLine[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
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
  let busy = 0;
  for (const [id, time] of selfByNode) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    busy += time;
    const name = `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + time);
    const mod = moduleOf(frame.url, frame.functionName);
    modules.set(mod, (modules.get(mod) ?? 0) + time);
  }
  const rank = (m: Map<string, number>): ProfileLine[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => ({ name, share: time / busy }));
  return { functions: rank(functions), modules: rank(modules) };
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
): { title: string; body: string } {
  const file = profileIn(dir);
  if (file === undefined) return { title, body: `No .cpuprofile was written in ${dir}.` };
  const { functions, modules } = summarizeProfile(file, 20, skipMs, untilMs);
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
    ].join('\n'),
  };
}
