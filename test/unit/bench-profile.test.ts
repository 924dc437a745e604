/**
 * The benches' profile summary (bench/lib/profile.ts): a sample's time goes to the duty of the
 * nearest frame on its stack that has one, so a socket write under the logger counts for the logs
 * and under Fastify for the framework, a hash under the key check for auth; what no frame claims is
 * "other"; idle time is left out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dutyOf, summarizeProfile } from '../../bench/lib/profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'lockcloud-profile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
const SRC = 'file:///srv/lockcloud/src';
const MODULES = 'file:///srv/lockcloud/node_modules';

/** A profile of these stacks (root first), each sampled for its microseconds. */
function profileOf(stacks: readonly { path: readonly ReturnType<typeof frame>[]; us: number }[]): string {
  const nodes = [{ id: 1, callFrame: frame('(root)', ''), children: [] as number[] }];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const { path, us } of stacks) {
    let parent = nodes[0];
    for (const f of path) {
      const id = nodes.length + 1;
      const node = { id, callFrame: f, children: [] as number[] };
      nodes.push(node);
      parent?.children.push(id);
      parent = node;
    }
    samples.push(parent?.id ?? 1);
    timeDeltas.push(us);
  }
  const file = join(dir, `p${Math.random()}.cpuprofile`);
  writeFileSync(file, JSON.stringify({ startTime: 0, nodes, samples, timeDeltas }));
  return file;
}

describe('the profile split by duty', () => {
  it('names the duty of our modules and the libraries that do them', () => {
    assert.equal(dutyOf('pino'), 'logs');
    assert.equal(dutyOf('src/http/request-log.ts'), 'logs');
    assert.equal(dutyOf('prom-client'), 'metrics');
    assert.equal(dutyOf('src/adapters/rate-limit/memory.ts'), 'rate limits');
    assert.equal(dutyOf('src/http/key-check.ts'), 'auth');
    assert.equal(dutyOf('kysely'), 'store');
    assert.equal(dutyOf('src/adapters/stores/read-cache.ts'), 'store');
    assert.equal(dutyOf('aedes'), 'devices and broker');
    assert.equal(dutyOf('fastify'), 'HTTP framework');
    assert.equal(dutyOf('src/app/commands.ts'), 'routes and use cases');
    assert.equal(dutyOf('node internals', 'node:_http_incoming'), 'HTTP framework');
    assert.equal(dutyOf('node internals', 'node:internal/crypto/hash'), undefined);
    assert.equal(dutyOf('node internals'), undefined);
    assert.equal(dutyOf('(native)'), undefined);
  });

  it('gives a sample to the nearest frame above it that has a duty, idle left out', () => {
    const writev = frame('writev', '');
    const file = profileOf([
      { path: [frame('handle', `${MODULES}/fastify/lib/reply.js`), writev], us: 300 },
      { path: [frame('write', `${MODULES}/pino/pino.js`), frame('write', 'node:net'), writev], us: 100 },
      {
        path: [
          frame('onRequest', `${MODULES}/fastify/lib/hooks.js`),
          frame('authenticate', `${SRC}/app/auth.ts`),
          frame('Hash', 'node:internal/crypto/hash'),
        ],
        us: 200,
      },
      {
        path: [frame('executeQuery', `${MODULES}/kysely/dist/esm/dialect/sqlite/sqlite-driver.js`)],
        us: 250,
      },
      { path: [frame('processTicksAndRejections', 'node:internal/process/task_queues')], us: 150 },
      { path: [frame('(idle)', '')], us: 5_000 },
    ]);
    const { split, busyUs } = summarizeProfile(file);
    assert.equal(busyUs, 1_000, 'idle left out');
    assert.deepEqual(
      split.map((d) => [d.name, d.share]),
      [
        ['HTTP framework', 0.3],
        ['store', 0.25],
        ['auth', 0.2],
        ['other (event loop, timers, garbage collector)', 0.15],
        ['logs', 0.1],
      ],
    );
  });
});
