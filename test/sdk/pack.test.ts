/**
 * The SDK as its users get it: `npm pack` in sdk/ (which builds it first), the tarball installed into
 * an empty project made by `npm init -y` beside the current `typescript` and `@types/node` from the
 * registry, examples type-checked there under `--strict` with `"module": "nodenext"` (an ES module, a
 * CommonJS file, every TypeScript example of README.md's SDK section and of sdk/README.md, and a
 * file of things that must not compile), then compiled and run against a live lockcloud. The SDK's
 * own sources are compiled there too, against that typescript and @types/node.
 *
 * It reaches the npm registry (the install): a failure there says so. About 10 to 20 s on the
 * development machine, most of it the install.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, sh } from '../support/npm.ts';
import { getLock, LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { PUBLIC_VALUES } from './public-api.ts';
import { tsExamples } from './readme.ts';

const npm = (what: string, args: string[], cwd: string) => sh(what, 'npm', args, cwd);

/** tsc's default-to-strict settings as `tsc --init` writes them, plus: the package's .d.ts checked too. */
const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    moduleDetection: 'force',
    skipLibCheck: false,
    types: ['node'],
    rootDir: '.',
    outDir: 'out',
  },
  include: ['*.mts', '*.cts'],
};

/** An ES module user: every client, a typed error of each kind, the exports map. */
const ESM_EXAMPLE = `
import * as sdk from '@lockcloud/sdk';
import {
  ConnectionError,
  LockcloudClient,
  LockcloudSandboxClient,
  RequestTimeoutError,
  TaskFailedError,
  type Lock,
} from '@lockcloud/sdk';

const baseUrl = process.env.LOCKCLOUD_URL ?? '';
console.log('exports:', Object.keys(sdk).sort().join(','));

const client = new LockcloudClient({ baseUrl, apiKey: process.env.LOCKCLOUD_API_KEY ?? '', retry: true });
const sandbox = new LockcloudSandboxClient({ baseUrl });
const locks: Lock[] = await client.listLocks();
console.log('locks:', locks.map((lock) => lock.nickname).join(', '));
const [first] = locks;
if (!first) throw new Error('no lock');
await client.run(first.device_id, 'unlock');
console.log('unlocked:', !(await client.getLock(first.device_id)).locked);

await sandbox.setLock(first.device_id, { fail_next: 'JAMMED' });
const jammed = await client.run(first.device_id, 'lock').catch((err: unknown) => err);
console.log('jammed:', jammed instanceof TaskFailedError ? jammed.reason : String(jammed));

const hook = await client.webhook.set({ url: 'http://127.0.0.1:9/hook/{device_id}', method: 'GET' });
console.log('webhook:', hook.method, hook.retries, (hook.secret ?? '').startsWith('whsec_'));

const refused = await new LockcloudClient({ baseUrl: process.env.REFUSED_URL ?? '', apiKey: 'k' })
  .listLocks()
  .catch((err: unknown) => err);
console.log('refused:', refused instanceof ConnectionError ? \`\${refused.name} \${refused.code}\` : String(refused));

const silent = new LockcloudClient({ baseUrl: process.env.SILENT_URL ?? '', apiKey: 'k', timeoutMs: 200 });
const late = await silent.listLocks().catch((err: unknown) => err);
console.log('silent:', late instanceof RequestTimeoutError ? \`\${late.name} \${late.timeoutMs}\` : String(late));

const deep = '@lockcloud/sdk/dist/http.js';
const blocked = await import(deep).then(() => 'importable', (err: { code?: string }) => err.code);
console.log('deep import:', blocked);
`;

/** A CommonJS user (npm init -y makes a "type": "commonjs" project): require() of the ES module. */
const CJS_EXAMPLE = `
import sdk = require('@lockcloud/sdk');

async function main(): Promise<void> {
  const client = new sdk.LockcloudClient({ baseUrl: process.env.LOCKCLOUD_URL ?? '', apiKey: process.env.LOCKCLOUD_API_KEY ?? '' });
  const locks = await client.listLocks();
  console.log('cjs locks:', locks.length);
  const imported = await import('@lockcloud/sdk');
  console.log('one copy:', imported.ThrottledError === sdk.ThrottledError);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
`;

/** What must not compile for a user: each line below its @ts-expect-error is an error. */
const MUST_NOT_COMPILE = `
// @ts-expect-error the retry loop is internal
import { withRetry } from '@lockcloud/sdk';
// @ts-expect-error the error tables are internal
import { V3_ERROR_CLASSES } from '@lockcloud/sdk';
// @ts-expect-error the error builders are internal
import { v3ErrorFrom } from '@lockcloud/sdk';
// @ts-expect-error the HTTP path is internal
import { Http } from '@lockcloud/sdk';
// @ts-expect-error no deep imports: the exports map has "." only
import type { HttpRequest } from '@lockcloud/sdk/dist/http.js';
import { LockcloudClient, LockcloudSandboxClient, type WebhookApi } from '@lockcloud/sdk';

declare const http: never;
// @ts-expect-error WebhookApi is a type: client.webhook is made by the client
new WebhookApi(http, 'key');
const webhook: WebhookApi = new LockcloudClient({ baseUrl: 'http://h', apiKey: 'k' }).webhook;
// @ts-expect-error the sandbox takes no key
new LockcloudSandboxClient({ baseUrl: 'http://h', apiKey: 'k' });
// @ts-expect-error a webhook is GET or POST
await webhook.set({ url: 'http://h', method: 'PUT' });
void [withRetry, V3_ERROR_CLASSES, v3ErrorFrom, Http, null as unknown as HttpRequest];
`;

async function listenSilent(): Promise<{ server: Server; url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, url: `http://127.0.0.1:${address.port}`, sockets };
}

describe('sdk: packed, installed into an empty TypeScript project, type-checked and run', () => {
  let dir: string;
  let app: string;
  let tarball: string;
  let packed: { filename: string; size: number; files: { path: string }[] };
  let t: TestServer;
  let silent: Awaited<ReturnType<typeof listenSilent>>;
  let refusedUrl: string;
  const started = performance.now();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-sdk-pack-'));
    app = join(dir, 'app');
    // npm pack runs the package's prepack script: a clean build of dist/.
    const pack = await npm('npm pack', ['pack', '--json', '--pack-destination', dir], resolve('sdk'));
    const [first] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as (typeof packed)[];
    assert.ok(first, pack.stdout);
    packed = first;
    tarball = join(dir, packed.filename);
    mkdirSync(app);
    await npm('npm init -y', ['init', '-y'], app);
    await npm(
      'npm install of the tarball, typescript and @types/node (is the npm registry reachable?)',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, 'typescript', '@types/node'],
      app,
    );
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(join(app, 'esm.mts'), ESM_EXAMPLE);
    writeFileSync(join(app, 'cjs.cts'), CJS_EXAMPLE);
    writeFileSync(join(app, 'must-not-compile.mts'), MUST_NOT_COMPILE);
    const examples = [
      ...tsExamples('README.md').filter((e) => e.where.endsWith('## SDK')),
      ...tsExamples('sdk/README.md'),
    ];
    assert.ok(examples.length >= 5, `${examples.length} README examples`);
    examples.forEach((e, i) => {
      writeFileSync(join(app, `readme-${i}.mts`), `// ${e.where}\n${e.code}`);
    });
    t = await startServer({ flags: ['--no-rate-limit'] });
    silent = await listenSilent();
    const closed = await listenSilent();
    refusedUrl = closed.url;
    await new Promise((r) => closed.server.close(r));
  });
  after(async () => {
    await t?.close();
    for (const socket of silent?.sockets ?? []) socket.destroy();
    await new Promise((r) => (silent ? silent.server.close(r) : r(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the tarball holds dist/ (JavaScript and .d.ts for each source), package.json and README.md: no sources, no tests', (c) => {
    const paths = packed.files.map((f) => f.path).sort();
    const sources = readdirSync('sdk/src')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''));
    const expected = [
      'README.md',
      'package.json',
      ...sources.flatMap((s) => [`dist/${s}.d.ts`, `dist/${s}.js`]),
    ].sort();
    assert.deepEqual(paths, expected);
    const kib = (packed.size / 1024).toFixed(1);
    c.diagnostic(`@lockcloud/sdk tarball: ${packed.size} bytes (${kib} KiB), ${paths.length} files`);
  });

  it('the installed package has no .ts specifier in its JavaScript or declarations', () => {
    const dist = join(app, 'node_modules', '@lockcloud', 'sdk', 'dist');
    let seen = 0;
    for (const file of readdirSync(dist)) {
      // The JSDoc examples import '@lockcloud/sdk'; the code is what is outside the block comments.
      const code = readFileSync(join(dist, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)) {
        seen++;
        assert.match(specifier ?? '', /^\.\/[a-z0-9-]+\.js$/, `${file}: ${specifier}`);
      }
    }
    assert.ok(seen > 20, `${seen} specifiers`);
  });

  it('type-checks under --strict, "module": "nodenext", the current @types/node: ES module, CommonJS, READMEs', async (c) => {
    const versions = await npm('npm ls', ['ls', '--depth=0'], app);
    c.diagnostic(`consumer: ${versions.stdout.split('\n').slice(1).join(' ').replace(/\s+/g, ' ').trim()}`);
    await sh('tsc', join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], app);
  });

  it('the SDK’s own sources compile against the current typescript and @types/node, not only the repository’s', async () => {
    // The repository pins an older @types/node; Web Crypto's types under the newer one refused a view
    // of an ArrayBufferLike (webhooks.ts), which only this catches before a user does.
    await sh(
      "tsc of sdk/src with the consumer's typescript and @types/node",
      join(app, 'node_modules', '.bin', 'tsc'),
      [
        '-p',
        resolve('sdk/tsconfig.build.json'),
        '--noEmit',
        '--typeRoots',
        join(app, 'node_modules', '@types'),
      ],
      app,
    );
  });

  it('runs as an ES module against a live lockcloud: every client, the typed errors, the exports map', async () => {
    const { stdout, stderr } = await sh(
      'the ES module example',
      process.execPath,
      [join(app, 'out', 'esm.mjs')],
      app,
      cleanEnv({
        LOCKCLOUD_URL: t.url,
        LOCKCLOUD_API_KEY: OWNER_KEY,
        REFUSED_URL: refusedUrl,
        SILENT_URL: silent.url,
      }),
    );
    assert.equal(stderr, '');
    assert.deepEqual(stdout.trimEnd().split('\n'), [
      `exports: ${[...PUBLIC_VALUES].sort().join(',')}`,
      'locks: Front door, Back door',
      'unlocked: true',
      'jammed: JAMMED',
      'webhook: GET false true',
      'refused: ConnectionError ECONNREFUSED',
      'silent: RequestTimeoutError 200',
      'deep import: ERR_PACKAGE_PATH_NOT_EXPORTED',
    ]);
    const lock = (await (await getLock(t, LOCK_A)).json()) as { locked: boolean };
    assert.equal(lock.locked, false, 'the unlock reached the server; the jammed lock left it unlocked');
  });

  it('runs from CommonJS (require of the ES module: one copy of the package, not two)', async (c) => {
    const { stdout, stderr } = await sh(
      'the CommonJS example',
      process.execPath,
      [join(app, 'out', 'cjs.cjs')],
      app,
      cleanEnv({ LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY }),
    );
    assert.equal(stderr, '');
    assert.equal(stdout, 'cjs locks: 2\none copy: true\n');
    c.diagnostic(`pack, install, type-check and runs: ${Math.round(performance.now() - started)} ms`);
  });
});
