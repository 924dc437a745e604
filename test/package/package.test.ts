/**
 * The `lockcloud` package's shape, from the repository: package.json (publishable, compiled entry
 * points, the built files only, no TypeScript loader at run time), one version everywhere
 * (package.json, src/version.ts, CHANGELOG.md, `--version`), LICENSE, and the `lockcloud` command's
 * top level (help, version, unknown commands, a missing build). The packed and installed package is
 * test/package/pack.test.ts's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VERSION as MAIN_VERSION } from '../../src/main.ts';
import { VERSION } from '../../src/version.ts';

interface PackageJson {
  name: string;
  version: string;
  license: string;
  private?: boolean;
  type: string;
  bin: Record<string, string>;
  exports: unknown;
  main: string;
  types: string;
  files: string[];
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as PackageJson;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[], entry = ['--import', 'tsx', 'src/bin/cli.ts']): Promise<Run> {
  const child = spawn(process.execPath, [...entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const COMMANDS = ['serve', 'sim', 'admin', 'migrate', 'locks'];

describe('the lockcloud package', () => {
  it('package.json: publishable, the built entry points, an exports map with types, the built files only', () => {
    assert.equal(pkg.name, 'lockcloud');
    assert.equal(pkg.private, undefined, 'a private package cannot be published');
    assert.equal(pkg.type, 'module');
    assert.deepEqual(pkg.bin, { lockcloud: 'bin/lockcloud.js' });
    assert.deepEqual(pkg.exports, {
      '.': { types: './dist/src/index.d.ts', default: './dist/src/index.js' },
      './package.json': './package.json',
    });
    assert.equal(pkg.main, './dist/src/index.js');
    assert.equal(pkg.types, './dist/src/index.d.ts');
    assert.deepEqual(pkg.files, ['bin/', 'dist/', 'docs/fake.md', 'CHANGELOG.md']);
  });

  it('no TypeScript loader at run time: tsx is a development dependency, and no start script uses it', () => {
    assert.equal(pkg.dependencies.tsx, undefined);
    assert.ok(pkg.devDependencies.tsx, 'tsx stays for the tests');
    assert.equal(pkg.scripts.start, 'node bin/lockcloud.js serve');
    for (const command of ['admin', 'locks', 'sim', 'migrate'])
      assert.equal(pkg.scripts[command], `node bin/lockcloud.js ${command}`);
    assert.doesNotMatch(readFileSync('bin/lockcloud.js', 'utf8'), /tsx/);
    // A clone builds at `npm install` (prepare), `npm pack` builds before packing (prepare too).
    assert.equal(pkg.scripts.build, 'node scripts/build.mjs');
    assert.equal(pkg.scripts.prepare, 'npm run --silent build');
  });

  it('one version: package.json, src/version.ts (also main.ts’s), the newest CHANGELOG.md entry', () => {
    assert.equal(VERSION, pkg.version);
    assert.equal(MAIN_VERSION, pkg.version);
    const newest = /^## (\S+)/m.exec(readFileSync('CHANGELOG.md', 'utf8'))?.[1];
    assert.equal(newest, pkg.version, 'the first ## heading of CHANGELOG.md');
  });

  it('LICENSE: the MIT license of package.json, held by the lockcloud authors', () => {
    assert.equal(pkg.license, 'MIT');
    const text = readFileSync('LICENSE', 'utf8');
    assert.match(text, /^MIT License\n\nCopyright \(c\) \d{4} the lockcloud authors\n/);
    assert.match(text, /Permission is hereby granted, free of charge, to any person obtaining a copy/);
    assert.match(text, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
  });
});

describe('the lockcloud command: its top level', () => {
  it('--version and -V print the version alone', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await run([flag]);
      assert.deepEqual(result, { code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });

  it('--help, -h and help list every command and the exit codes', async () => {
    const first = await run(['--help']);
    assert.equal(first.code, 0);
    assert.equal(first.stderr, '');
    for (const command of COMMANDS)
      assert.match(first.stdout, new RegExp(`^  ${command} +\\S`, 'm'), command);
    for (const code of [0, 1, 2, 3, 4, 5])
      assert.match(first.stdout, new RegExp(`^  ${code}  \\S`, 'm'), `exit ${code}`);
    assert.match(first.stdout, new RegExp(`^lockcloud ${pkg.version.replaceAll('.', '\\.')}:`));
    for (const flag of ['-h', 'help']) assert.deepEqual(await run([flag]), first);
  });

  it("each command's --help lists its exit codes too (a subcommand's as well)", async () => {
    // Issue 20: `lockcloud --help` listed them, `lockcloud locks --help` did not.
    const codes: Record<string, readonly number[]> = {
      serve: [0, 1, 2],
      sim: [0, 1, 2],
      admin: [0, 1, 2],
      migrate: [0, 1, 2],
      locks: [0, 1, 2, 3, 4, 5],
    };
    const runs = await Promise.all(
      [...COMMANDS.map((c) => [c]), ['locks', 'unlock'], ['admin', 'set-password']].map(async (args) => ({
        args,
        result: await run([...args, '--help']),
      })),
    );
    for (const { args, result } of runs) {
      const what = args.join(' ');
      assert.equal(result.code, 0, `${what}: ${result.stderr}`);
      const section = result.stdout.slice(result.stdout.indexOf('\nExit codes:\n'));
      assert.ok(
        section.length > 0 && result.stdout.includes('\nExit codes:\n'),
        `${what} --help: ${result.stdout}`,
      );
      for (const code of codes[args[0] ?? ''] ?? [])
        assert.match(section, new RegExp(`^  ${code}  \\S`, 'm'), `${what}: exit ${code}`);
    }
  });

  it('help COMMAND is COMMAND --help', async () => {
    for (const command of ['migrate', 'locks']) {
      const viaHelp = await run(['help', command]);
      assert.equal(viaHelp.code, 0, viaHelp.stderr);
      assert.deepEqual(viaHelp, await run([command, '--help']));
      assert.match(viaHelp.stdout, new RegExp(`lockcloud ${command}`));
    }
  });

  it('an unknown command (or option where a command goes) is a usage error, exit 2, naming the commands', async () => {
    for (const args of [['nope'], ['--port', '0'], ['help', 'nope'], ['constructor']]) {
      const result = await run(args);
      assert.equal(result.code, 2, JSON.stringify(args));
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /^lockcloud: unknown command "[^"]*"\. Commands: serve, sim, admin, migrate, locks/,
      );
    }
  });

  it('bin/lockcloud.js without a build says how to make one, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-no-build-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync('bin/lockcloud.js', join(dir, 'bin', 'lockcloud.js'));
      const result = await run(['--version'], [join(dir, 'bin', 'lockcloud.js')]);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /^lockcloud: no build at .*dist\/: run `npm run build` \(npm install runs it\)\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bin/lockcloud.js in a clone whose src/ is newer than the build: runs the build, with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-stale-build-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync('bin/lockcloud.js', join(dir, 'bin', 'lockcloud.js'));
      mkdirSync(join(dir, 'dist', 'src', 'bin'), { recursive: true });
      const built = join(dir, 'dist', 'src', 'bin', 'cli.js');
      writeFileSync(built, "process.stdout.write('the build ran\\n');\n");
      const bin = [join(dir, 'bin', 'lockcloud.js')];
      // As installed: no src/ beside the build.
      assert.deepEqual(await run([], bin), { code: 0, stdout: 'the build ran\n', stderr: '' });
      mkdirSync(join(dir, 'src', 'app'), { recursive: true });
      writeFileSync(join(dir, 'src', 'app', 'x.ts'), '');
      utimesSync(built, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const stale = await run([], bin);
      assert.equal(stale.code, 0);
      assert.equal(stale.stdout, 'the build ran\n');
      assert.equal(
        stale.stderr,
        'lockcloud: warning: src/ is newer than the build in dist/: run `npm run build`\n',
      );
      utimesSync(built, new Date(), new Date(Date.now() + 60_000));
      assert.deepEqual(await run([], bin), { code: 0, stdout: 'the build ran\n', stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
