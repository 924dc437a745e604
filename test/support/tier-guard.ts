/**
 * Holds a test file to its tier (test/tiers.ts): in a unit-tier file, opening a server or a
 * connection throws; in a unit- or integration-tier file, starting a process throws. A test that
 * catches the error still fails: the file's process exits 1 naming what it did. Installed in every
 * test process by scripts/run-tests.mjs (test/support/tier-preload.ts).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import type { Tier } from '../tiers.ts';

const PROCESS_STARTERS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

export class TierViolation extends Error {
  override name = 'TierViolation';
}

/** What this process did that its tier forbids, in order. */
export const violations: TierViolation[] = [];

/**
 * Refuses, from now on in this process, what `tier` forbids; `file` names the test file in the
 * message. Answers how to undo it.
 */
export function guardTier(tier: Tier, file: string): () => void {
  const undo: (() => void)[] = [];
  const refuse = (what: string): never => {
    const next = tier === 'unit' ? 'integration' : 'system';
    const violation = new TierViolation(
      `${file} is in the ${tier} tier but ${what}: a ${tier} test ${
        tier === 'unit' ? 'opens no socket and starts no process' : 'starts no process'
      }. Give it the ${next} tier in test/tiers.ts.`,
    );
    violations.push(violation);
    throw violation;
  };
  const replace = <T extends object>(owner: T, name: keyof T & string, what: string): void => {
    const original = owner[name];
    Object.defineProperty(owner, name, {
      value: () => refuse(what),
      writable: true,
      configurable: true,
    });
    undo.push(() => {
      Object.defineProperty(owner, name, { value: original, writable: true, configurable: true });
    });
  };
  if (tier === 'unit') {
    replace(net.Server.prototype, 'listen', 'opened a server');
    replace(net.Socket.prototype, 'connect', 'opened a connection');
  }
  if (tier !== 'system') {
    for (const name of PROCESS_STARTERS) replace(childProcess, name, `started a process (${name})`);
  }
  // `import { spawn } from 'node:child_process'` reads the module's exports: make it see ours.
  syncBuiltinESMExports();
  return () => {
    for (const step of undo.reverse()) step();
    syncBuiltinESMExports();
  };
}
