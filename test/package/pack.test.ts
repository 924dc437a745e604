/**
 * The `lockcloud` package as its users get it: `npm pack` (which builds first: `prepare`), the
 * tarball installed into an empty project made by `npm init -y` (with vitest 3 beside it, for the
 * second example), and then, from that project's own directory with no source tree beside it:
 * `npx lockcloud serve` answering a command round trip with the demo key it prints, every other
 * subcommand through the installed bin, and the two examples of docs/fake.md run as written
 * (node --test, vitest), the vitest one type-checked under --strict against the shipped
 * declarations, and `require('lockcloud')` from CommonJS.
 *
 * It reaches the npm registry (the install): a failure there says so. The install compiles
 * better-sqlite3 from source when no prebuilt binary can be fetched (about a minute of CPU; npm's
 * cache does not keep what a package's install script built). So that this happens once per
 * machine, not on every run, the compiled binary is kept as a local prebuild in npm's cache
 * (`<npm cache>/_lockcloud-prebuilds`, named as prebuild-install names a release's binary: package,
 * version, Node ABI, platform, architecture) and handed to later installs as prebuild-install's
 * "local prebuilds" (its `local-prebuilds` setting, in a `.prebuild-installrc` of the project; the
 * `better_sqlite3_local_prebuilds` npm setting would do the same, but npm 11 warns that it will stop
 * passing unknown settings on): the same version's binary compiled on this machine, and a new
 * version or a new Node compiles afresh.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { cleanEnv, sh, signalGroup } from '../support/npm.ts';

const REPO = resolve('.');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; name: string };

/** The ```lang block under `## heading` of a markdown file: exactly one. */
function codeBlock(file: string, heading: string, lang: string): string {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${file}: no "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))];
  assert.equal(blocks.length, 1, `${file} ## ${heading}: one \`\`\`${lang} block`);
  return blocks[0]?.[1] ?? '';
}

/** Every file under a directory, relative to it, with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((item) => item.isFile())
    .map((item) =>
      relative(dir, join(item.parentPath ?? item.path, item.name))
        .split('\\')
        .join('/'),
    );
}

/** What the build makes of the sources: a .js for each .ts of src/ and sdk/src/, the entry's .d.ts, the assets. */
function expectedBuild(): string[] {
  // A declaration file among the sources (a module's types) compiles to nothing.
  const compiled = ['src', 'sdk/src'].flatMap((dir) =>
    filesUnder(dir)
      .filter((f) => !f.endsWith('.d.ts'))
      .map((f) => (f.endsWith('.ts') ? `dist/${dir}/${f.replace(/\.ts$/, '.js')}` : `dist/${dir}/${f}`)),
  );
  return [...compiled, 'dist/src/index.d.ts'];
}

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly apiKey: string;
  readonly email: string;
  readonly password: string;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** `npx lockcloud serve ...` in `cwd`, resolved once it prints its base URL and demo credentials. */
async function serve(cwd: string, args: readonly string[]): Promise<Served> {
  const child = spawn('npx', ['--no-install', 'lockcloud', 'serve', ...args], {
    cwd,
    env: cleanEnv({ LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const printed = await new Promise<RegExpExecArray>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no base URL in 60 s:\n${out}\n${err}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)[\s\S]*login: +(\S+) \/ (\S+)\n +API key: +(\S+)\n/.exec(out);
      if (match) {
        clearTimeout(timer);
        done(match);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`serve exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  const [, url = '', email = '', password = '', apiKey = ''] = printed;
  return { child, url, email, password, apiKey, stdout: () => out, stderr: () => err, exited };
}

describe('lockcloud: packed, installed into an empty project, run from there', () => {
  let dir: string;
  let app: string;
  let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
  let server: Served | undefined;
  const timings: string[] = [];
  const started = performance.now();
  const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      timings.push(`${what} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  };
  const npx = (args: string[], env: Record<string, string> = {}) =>
    sh(`npx ${args.join(' ')}`, 'npx', ['--no-install', ...args], app, cleanEnv(env));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-pack-'));
    app = join(dir, 'app');
    // npm pack runs `prepare`: a clean build of dist/.
    const pack = await timed('pack (with the build)', () =>
      sh('npm pack', 'npm', ['pack', '--json', '--pack-destination', dir], REPO),
    );
    const [first] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as (typeof packed)[];
    assert.ok(first, pack.stdout);
    packed = first;
    mkdirSync(app);
    await sh('npm init -y', 'npm', ['init', '-y'], app);

    const cache = (await sh('npm config get cache', 'npm', ['config', 'get', 'cache'], app)).stdout.trim();
    const prebuilds = join(cache, '_lockcloud-prebuilds');
    mkdirSync(prebuilds, { recursive: true });
    // prebuild-install reads its settings (rc) from the directories above the package it installs.
    writeFileSync(join(app, '.prebuild-installrc'), `local-prebuilds=${prebuilds}\n`);
    await timed('install of the tarball and vitest 3', () =>
      sh(
        'npm install of the tarball and vitest 3 (is the npm registry reachable?)',
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', join(dir, packed.filename), 'vitest@3'],
        app,
        cleanEnv(),
        600_000,
      ),
    );
    // Keep this machine's compiled better-sqlite3 for the next run (written whole, then renamed).
    const sqlite = join(app, 'node_modules', 'better-sqlite3');
    const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
    const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    if (!existsSync(join(prebuilds, name))) {
      const partial = join(prebuilds, `${name}.${process.pid}.tmp`);
      await sh(
        'tar of the compiled better-sqlite3',
        'tar',
        ['-czf', partial, 'build/Release/better_sqlite3.node'],
        sqlite,
      );
      renameSync(partial, join(prebuilds, name));
      timings.push('(better-sqlite3 compiled from source; kept for the next run)');
    }

    writeFileSync(join(app, 'lock.test.mjs'), codeBlock('docs/fake.md', 'node:test', 'js'));
    writeFileSync(join(app, 'lock.test.ts'), codeBlock('docs/fake.md', 'vitest', 'ts'));
  });

  after(async () => {
    if (server) {
      signalGroup(server.child, 'SIGKILL');
      await server.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the tarball holds the build, the bin, LICENSE, README, CHANGELOG and docs/fake.md: no sources, no tests', (c) => {
    const paths = packed.files.map((f) => f.path).sort();
    const expected = [
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'package.json',
      'bin/lockcloud.js',
      'docs/fake.md',
      ...expectedBuild(),
    ].sort();
    assert.deepEqual(paths, expected);
    c.diagnostic(
      `lockcloud tarball: ${packed.size} bytes packed (${(packed.size / 1024).toFixed(1)} KiB), ` +
        `${packed.unpackedSize} unpacked, ${paths.length} files`,
    );
  });

  it('installed: no sources, no TypeScript loader, one declaration file that imports nothing of ours', () => {
    const installed = join(app, 'node_modules', 'lockcloud');
    const files = filesUnder(installed);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts')),
      ['dist/src/index.d.ts'],
    );
    assert.ok(!existsSync(join(installed, 'src')));
    assert.ok(!existsSync(join(app, 'node_modules', 'tsx')), 'tsx is not installed for users');
    const types = readFileSync(join(installed, 'dist', 'src', 'index.d.ts'), 'utf8');
    assert.doesNotMatch(types, /(?:from\s*|import\s*\(\s*)['"]\./, 'a relative import in the declarations');
    // Every relative specifier of the JavaScript names a shipped .js file.
    for (const file of files.filter((f) => f.endsWith('.js') && f.startsWith('dist/'))) {
      const code = readFileSync(join(installed, file), 'utf8');
      for (const [, specifier = ''] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.[^'"]+)['"]/g)) {
        assert.match(specifier, /\.js$/, `${file}: ${specifier}`);
        assert.ok(
          existsSync(resolve(installed, file, '..', specifier)),
          `${file}: ${specifier} is not shipped`,
        );
      }
    }
  });

  it('npx lockcloud --version and --help', async () => {
    assert.deepEqual(await npx(['lockcloud', '--version']), { stdout: `${pkg.version}\n`, stderr: '' });
    const help = await npx(['lockcloud', '--help']);
    for (const command of ['serve', 'sim', 'admin', 'migrate', 'locks'])
      assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    assert.equal(help.stderr, '');
  });

  it('npx lockcloud serve answers: a command round trip with the demo key it printed, its assets, its version', async () => {
    server = await timed('serve start', () =>
      serve(app, ['--port', '0', '--mqtt-port', '0', '--host', '127.0.0.1', '--data', './data']),
    );
    const { url, apiKey } = server;
    const auth = { authorization: apiKey };
    const locks = (await (await fetch(`${url}/public/locks`, { headers: auth })).json()) as {
      device_id: string;
    }[];
    assert.equal(locks.length, 2, JSON.stringify(locks));
    const [lock] = locks;
    const sent = await fetch(`${url}/public/lock/${lock?.device_id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'unlock' }),
    });
    assert.equal(sent.status, 200);
    const { task_id } = (await sent.json()) as { task_id: string };
    const result = await eventually(
      'the unlock to end',
      async () => {
        const res = await fetch(`${url}/public/action-result?task_id=${task_id}`, { headers: auth });
        const body = (await res.json()) as { status: string };
        return body.status !== 'processing' && body;
      },
      { timeoutMs: 30_000, everyMs: 50 },
    );
    assert.deepEqual(result, { status: 'terminated', task_id, successful: true });
    const status = (await (
      await fetch(`${url}/public/lock/${lock?.device_id}`, { headers: auth })
    ).json()) as {
      locked: boolean;
    };
    assert.equal(status.locked, false);

    const css = await fetch(`${url}/dashboard/assets/dashboard.css`);
    assert.equal(css.status, 200, 'the dashboard’s assets are in the package');
    assert.match(css.headers.get('content-type') ?? '', /text\/css/);
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { info: { version: string } };
    assert.equal(openapi.info.version, pkg.version);
  });

  it('the other subcommands through the installed bin: locks, admin, migrate, sim', async () => {
    assert.ok(server, 'the server of the previous test');
    const { url, apiKey, email } = server;
    const list = await npx(['lockcloud', 'locks', 'list', '--json', '--url', url, '--key', apiKey]);
    assert.equal((JSON.parse(list.stdout) as { locks: unknown[] }).locks.length, 2);
    const accounts = await npx(['lockcloud', 'admin', 'accounts', '--json', '--data', './data']);
    assert.match(accounts.stdout, new RegExp(email.replace('.', '\\.')));
    const migrated = await npx(['lockcloud', 'migrate', '--data', './data']);
    assert.match(migrated.stdout, /already up to date/);
    const sim = await npx(['lockcloud', 'sim', '--help']);
    assert.match(sim.stdout, /Usage: lockcloud sim/);
    for (const run of [list, accounts, migrated, sim]) assert.equal(run.stderr, '');
  });

  it('stops on SIGTERM, exit 0, and printed nothing on stderr', async () => {
    assert.ok(server, 'the server of the previous test');
    // To the group: npx does not pass SIGTERM on to the command it runs.
    signalGroup(server.child, 'SIGTERM');
    const code = await server.exited;
    // npx exits as its command did, or by the same signal.
    assert.ok(code === 0 || code === null, `exit ${code}\n${server.stderr()}`);
    assert.equal(server.stderr(), '');
    server = undefined;
  });

  it('docs/fake.md: the node:test example, as written', async () => {
    const { stdout } = await timed('node:test example', () =>
      sh('node --test lock.test.mjs', process.execPath, ['--test', 'lock.test.mjs'], app),
    );
    assert.match(stdout, /^# pass 3$/m, stdout);
    assert.match(stdout, /^# fail 0$/m, stdout);
  });

  it('docs/fake.md: the vitest example, as written, type-checked under --strict against the shipped types', async () => {
    const { stdout } = await timed('vitest example', () =>
      npx(['vitest', 'run', 'lock.test.ts', '--reporter=verbose'], { CI: 'true', NO_COLOR: '1' }),
    );
    assert.match(stdout, /Tests +3 passed \(3\)/, stdout);
    // As a vitest project compiles: ES modules resolved as a bundler does. tsc 7 of this repository
    // with its @types/node; vitest's types from the project.
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'preserve',
          moduleResolution: 'bundler',
          target: 'es2022',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules', '@types')],
        },
        files: ['lock.test.ts'],
      }),
    );
    await sh('tsc of the vitest example', join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', '.'], app);
  });

  it('the shipped declarations compile on their own under --strict (skipLibCheck off)', async () => {
    const check = join(app, 'types-check');
    mkdirSync(check);
    writeFileSync(
      join(check, 'use.mts'),
      `import { startLockcloud, SandboxError, VERSION, type LockcloudSeed, type RunningLockcloud, type SandboxLockState } from 'lockcloud';
const seed: LockcloudSeed = { accounts: [{ email: 'a@example.com', password: 'pw' }], locks: [] };
const lockcloud: RunningLockcloud = await startLockcloud({ seed, rateLimits: { block: { excess: 5 } }, logLevel: 'warn' });
const state: SandboxLockState = await lockcloud.sandbox.failNext('id', 'JAMMED');
const error = new SandboxError(404, 'NOT_FOUND', 'no such lock');
console.log(VERSION, state.fail_next, error.status);
// @ts-expect-error not a failure the sandbox knows
await lockcloud.sandbox.failNext('id', 'ON_FIRE');
// @ts-expect-error rateLimits is a boolean or the overrides
await startLockcloud({ rateLimits: 'off' });
await lockcloud.close();
`,
    );
    writeFileSync(
      join(check, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules', '@types')],
        },
        files: ['use.mts', '../node_modules/lockcloud/dist/src/index.d.ts'],
      }),
    );
    await sh('tsc of the declarations', join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', '.'], check);
  });

  it('loads from CommonJS too: require() of the ES module (Node 20.19+)', async (c) => {
    const { stdout } = await sh(
      'require(lockcloud)',
      process.execPath,
      [
        '-e',
        `const { startLockcloud } = require('lockcloud');
         startLockcloud().then(async (lockcloud) => {
           const res = await fetch(lockcloud.url + '/public/locks', { headers: { authorization: lockcloud.apiKey } });
           console.log(res.status, (await res.json()).length);
           await lockcloud.close();
         });`,
      ],
      app,
    );
    assert.equal(stdout, '200 2\n');
    c.diagnostic(`${timings.join('; ')}; whole test ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});
