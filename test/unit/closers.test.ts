/**
 * The composition root's list of what it opened (src/closers.ts): closed last first, every part even
 * when one fails, once; a failed start-up step closes what was opened before it and keeps its own
 * error. test/process/startup-failure.test.ts holds it against every real start-up step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Closers } from '../../src/closers.ts';

describe('Closers', () => {
  it('closes the last opened first, each once, however often it is asked', async () => {
    const closers = new Closers();
    const closed: string[] = [];
    for (const name of ['store', 'event bus', 'broker'])
      closers.push(name, async () => {
        closed.push(name);
      });
    await Promise.all([closers.closeAll(), closers.closeAll()]);
    await closers.closeAll();
    assert.deepEqual(closed, ['broker', 'event bus', 'store']);
  });

  it('closes the others when one fails, then rejects naming it', async () => {
    const closers = new Closers();
    const closed: string[] = [];
    closers.push('store', () => {
      closed.push('store');
    });
    closers.push('event bus', () => {
      throw new Error('socket hang up');
    });
    closers.push('broker', () => {
      closed.push('broker');
    });
    await assert.rejects(closers.closeAll(), (error: unknown) => {
      assert.ok(error instanceof AggregateError);
      assert.equal(error.message, 'closing failed: event bus (socket hang up)');
      return true;
    });
    assert.deepEqual(closed, ['broker', 'store']);
  });

  it('runs a start-up step; if it throws, closes what was opened and keeps the step’s error', async () => {
    const closers = new Closers();
    const closed: string[] = [];
    const closeErrors: unknown[] = [];
    closers.push('store', () => {
      closed.push('store');
    });
    const opened = await closers.starting(async () => {
      closers.push('broker', () => {
        throw new Error('already stopped');
      });
      return 'broker';
    }, closeErrors.push.bind(closeErrors));
    assert.equal(opened, 'broker');
    assert.deepEqual(closed, [], 'a step that succeeds closes nothing');
    const failure = new Error('EADDRINUSE');
    await assert.rejects(
      closers.starting(async () => {
        throw failure;
      }, closeErrors.push.bind(closeErrors)),
      (error: unknown) => error === failure,
    );
    assert.deepEqual(closed, ['store']);
    assert.equal(closeErrors.length, 1, 'the failure to close is reported, not thrown');
    assert.throws(() => closers.push('late', () => undefined), /after closing began/);
  });
});
