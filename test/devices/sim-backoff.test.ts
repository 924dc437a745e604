/**
 * `lockcloud sim` against a broker that is down (issue 20: a stack trace per access point every
 * second): one readable line per round of failed attempts for all its access points, no stack, a wait
 * that doubles each round; and once the broker is back, the access points connect and say so.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../support/eventually.ts';
import { OWNER, startServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const ACCESS_POINTS = 3;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('lockcloud sim while its broker is down', () => {
  let t: TestServer;
  let sim: ChildProcess | undefined;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(async () => {
    if (sim) {
      sim.kill('SIGKILL');
      await exited(sim);
    }
    await t.close();
  });

  it('tells each round of failures in one line, waits longer each time, and connects once the broker is back', async () => {
    const admin = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin/admin.ts',
        'register-ap',
        OWNER,
        '--count',
        String(ACCESS_POINTS),
        '--json',
      ],
      { env: { ...process.env, LOCKCLOUD_DATA: t.dataDir, LOG_LEVEL: 'warn' } },
    );
    const file = join(t.dataDir, 'access-points.json');
    writeFileSync(file, admin.stdout, { mode: 0o600 });
    const { broker, brokerUrl } = t.server.devices;
    assert.ok(broker);
    await broker.stop();

    sim = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/bin/sim.ts', '--mqtt-url', brokerUrl, '--access-points', file, '--locks', '3'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    sim.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    sim.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const failure = new RegExp(
      `^lockcloud sim: ${ACCESS_POINTS} access points cannot connect to ${brokerUrl.replaceAll('.', '\\.')}: ECONNREFUSED; trying again in (\\d+) s$`,
    );
    const lines = () => stderr.split('\n').filter(Boolean);
    await eventually(
      'three rounds of failed attempts',
      () => {
        assert.equal(sim?.exitCode, null, `the simulator exited: ${stdout}\n${stderr}`);
        return lines().length >= 3;
      },
      30_000,
    );
    // Every line is one round for all the access points, readable, without a stack; nothing else
    // is printed meanwhile (the log at its default level says nothing of the link either).
    const rounds = lines().slice(0, 3);
    const waits = rounds.map((line) => Number(failure.exec(line)?.[1]));
    assert.deepEqual(waits, [1, 2, 4], stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
    assert.equal(stdout, '', 'nothing on stdout while it cannot connect');

    await broker.start();
    await eventually(
      'the access points to connect',
      () => {
        assert.equal(sim?.exitCode, null, `the simulator exited: ${stdout}\n${stderr}`);
        return /connected to/.test(stdout) && / again$/m.test(stderr);
      },
      60_000,
    );
    assert.match(
      stdout,
      new RegExp(`^lockcloud sim: ${ACCESS_POINTS} access points with 3 locks connected to `, 'm'),
    );
    assert.match(
      stderr,
      new RegExp(`^lockcloud sim: ${ACCESS_POINTS} access points connected to \\S+ again$`, 'm'),
    );
    for (const line of lines().filter((l) => !/ again$/.test(l))) assert.match(line, failure);
  });
});
