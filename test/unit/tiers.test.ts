/**
 * The test tiers (test/tiers.ts) are complete and held: every test file has one, every entry names
 * files that exist, and the guard refuses what a file's tier forbids.
 */
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { guardTier, TierViolation, violations } from '../support/tier-guard.ts';
import { TIER_OF, testFiles, tierOf } from '../tiers.ts';

describe('test tiers', () => {
  it('gives every test file a tier', () => {
    const files = testFiles();
    assert.ok(files.length > 100, `${files.length} test files found`);
    assert.deepEqual(
      files.filter((f) => tierOf(f) === undefined),
      [],
    );
  });

  it('names no path that holds no test file (a moved or deleted file leaves no entry behind)', () => {
    const files = testFiles();
    assert.deepEqual(
      Object.keys(TIER_OF).filter((prefix) => !files.some((f) => f.startsWith(prefix))),
      [],
    );
  });

  it('gives a file the tier of its most specific entry', () => {
    assert.equal(tierOf('test/unit/domain/lock.test.ts'), 'unit');
    assert.equal(tierOf('test/dashboard/mail.test.ts'), 'integration');
    assert.equal(tierOf('test/dashboard/browser-locks.test.ts'), 'system');
    assert.equal(tierOf('test/devices/broker-restart.test.ts'), 'system');
    assert.equal(tierOf('test/elsewhere/x.test.ts'), undefined);
  });

  it('keeps test/unit/ to the unit tier: a file that needs more belongs in another folder', () => {
    assert.deepEqual(
      testFiles('test/unit').filter((f) => tierOf(f) !== 'unit'),
      [],
    );
  });
});

describe('the tier guard', () => {
  // This file is unit-tier: under scripts/run-tests.mjs the unit guard is already on, and each case
  // below would be refused anyway. What is checked is that each refusal happens and names the file;
  // the violations are taken back off the list so that this file's process does not fail for them.
  const refusedWith = (what: RegExp, act: () => unknown): void => {
    const before = violations.length;
    assert.throws(act, (error: unknown) => error instanceof TierViolation && what.test(error.message));
    violations.splice(before);
  };

  it('in a unit-tier file refuses a server, a connection and a process', () => {
    const undo = guardTier('unit', 'test/unit/example.test.ts');
    try {
      refusedWith(/example\.test\.ts is in the unit tier but opened a server/, () =>
        createServer().listen(0),
      );
      refusedWith(/opened a connection/, () => createConnection({ port: 1, host: '127.0.0.1' }));
      refusedWith(/started a process \(spawn\)/, () => childProcess.spawn('true'));
      refusedWith(/started a process \(execFileSync\)/, () => childProcess.execFileSync('true'));
    } finally {
      undo();
    }
  });

  it('in an integration-tier file refuses a process, and names the system tier', () => {
    const undo = guardTier('integration', 'test/http/example.test.ts');
    try {
      refusedWith(/integration tier but started a process \(spawnSync\).*system tier/, () =>
        childProcess.spawnSync('true'),
      );
      refusedWith(/started a process \(fork\)/, () => childProcess.fork('x.js'));
    } finally {
      undo();
    }
  });
});
