import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueue } from '../../../src/app/keyed-queue.ts';

/** A promise the test resolves or rejects by hand. */
function gate<T = void>(): { promise: Promise<T>; open(value: T): void; fail(error: Error): void } {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('KeyedQueue', () => {
  it('runs tasks of one key one after another, in the order they came', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const first = gate();
    const a = queue.run('k', async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
      return 'a';
    });
    const b = queue.run('k', async () => {
      log.push('b start');
      return 'b';
    });
    const c = queue.run('k', async () => {
      log.push('c start');
      return 'c';
    });
    await settle();
    assert.deepEqual(log, ['a start'], 'b waits for a');
    first.open();
    assert.deepEqual(await Promise.all([a, b, c]), ['a', 'b', 'c']);
    assert.deepEqual(log, ['a start', 'a end', 'b start', 'c start']);
  });

  it('never runs two tasks of one key at once', async () => {
    const queue = new KeyedQueue();
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.run('same', async () => {
          running++;
          most = Math.max(most, running);
          // Each task yields to the event loop a different number of times: others could start meanwhile.
          for (let turn = 0; turn < i % 3; turn++) await new Promise((r) => setImmediate(r));
          running--;
        }),
      ),
    );
    assert.equal(most, 1);
  });

  it('runs tasks of different keys at the same time', async () => {
    const queue = new KeyedQueue();
    const held = gate();
    const log: string[] = [];
    const a = queue.run('a', async () => {
      log.push('a start');
      await held.promise;
      log.push('a end');
    });
    const b = queue.run('b', async () => {
      log.push('b start');
      log.push('b end');
    });
    await b;
    assert.deepEqual(log, ['a start', 'b start', 'b end'], 'b did not wait for a');
    held.open();
    await a;
  });

  it('passes a failure to its caller and still runs the next task of the key', async () => {
    const queue = new KeyedQueue();
    const held = gate();
    const failing = queue.run('k', async () => {
      await held.promise;
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'next ran');
    held.open();
    await assert.rejects(failing, /boom/);
    assert.equal(await next, 'next ran');
  });

  it('a task that throws before its first await does not block the key either', async () => {
    const queue = new KeyedQueue();
    const failing = queue.run('k', () => {
      throw new Error('sync boom');
    });
    await assert.rejects(failing, /sync boom/);
    assert.equal(await queue.run('k', async () => 42), 42);
  });

  it('starts a task of an idle key at once, and forgets keys once they are idle', async () => {
    const queue = new KeyedQueue();
    for (let i = 0; i < 100; i++) await queue.run(`key-${i}`, async () => i);
    await settle();
    const tails = (queue as unknown as { tails: Map<string, unknown> }).tails;
    assert.equal(tails.size, 0, 'no key is kept after its last task');
    let started = false;
    const run = queue.run('fresh', async () => {
      started = true;
    });
    await settle();
    assert.equal(started, true);
    await run;
  });
});
