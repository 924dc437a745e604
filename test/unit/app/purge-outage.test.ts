/**
 * The hourly purges (expired v1 tokens, dashboard sessions) with the database away when they fire:
 * the failure waits for the next round. Each once ended the process, its rejection unhandled.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Sessions } from '../../../src/app/accounts/sessions.ts';
import { HourlyPurges } from '../../../src/app/hourly-purges.ts';
import type { Login } from '../../../src/app/login.ts';
import type { SessionStore, TokenStore } from '../../../src/app/ports.ts';
import { TokenAuth } from '../../../src/app/token-auth.ts';
import { BackendUnavailableError } from '../../../src/app/unavailable.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const HOUR = 60 * 60 * 1000;
const settle = () => new Promise((resolve) => setImmediate(resolve));
const quiet = { info() {}, warn() {}, error() {} };

/** A purge that fails as a database away would; counts its calls. */
function failingPurge() {
  const calls: number[] = [];
  const purge = async (cutoff: number): Promise<number> => {
    calls.push(cutoff);
    throw new BackendUnavailableError('database', new Error('connect ECONNREFUSED 127.0.0.1:5432'));
  };
  return { calls, purge };
}

describe('purges while the database is away', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('v1 tokens: the failed purge is tried again next hour, nothing unhandled', async () => {
    const clock = new ManualClock();
    const { calls, purge } = failingPurge();
    const auth = new TokenAuth(
      { purgeIssuedBefore: purge } as unknown as TokenStore,
      { hash: (s) => s },
      clock,
    );
    const purges = new HourlyPurges(clock, quiet, [{ what: 'tokens', run: (now) => auth.purge(now) }]);
    purges.start();
    clock.advance(HOUR);
    await settle();
    clock.advance(HOUR);
    await settle();
    purges.stop();
    assert.equal(calls.length, 2);
    assert.deepEqual(unhandled, []);
  });

  it('dashboard sessions: the failed purge is tried again next hour, nothing unhandled', async () => {
    const clock = new ManualClock();
    const { calls, purge } = failingPurge();
    const sessions = new Sessions({
      sessions: { purgeExpiredBefore: purge } as unknown as SessionStore,
      login: {} as Login,
      secrets: { hash: (s) => s },
      random: { uuid: () => 'u', secret: () => 's' },
      clock,
    });
    const purges = new HourlyPurges(clock, quiet, [{ what: 'sessions', run: (now) => sessions.purge(now) }]);
    purges.start();
    clock.advance(HOUR);
    await settle();
    clock.advance(HOUR);
    await settle();
    purges.stop();
    assert.equal(calls.length, 2);
    assert.deepEqual(unhandled, []);
  });
});
