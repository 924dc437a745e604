/**
 * The SDK's `{idempotencyKey}` (issue 21, point 5) against a live server: sent as Idempotency-Key on
 * every attempt; a repeat answers the first task; a command whose answer was lost is sent again with
 * the same key when retries are on (and never without a key); the key reused for another command is
 * BadParamsError.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BadParamsError, ConnectionError, type RetryInfo } from '../../sdk/src/index.ts';
import { LOCK_A, LOCK_B, simLockOk, startServer, type TestServer, waitForTask } from '../support/server.ts';
import { client } from './helpers.ts';

/** A fetch that sends each request for real, loses the first `lose` answers, and records the headers sent. */
function losingFetch(lose: number): { fetch: typeof fetch; keys: (string | null)[] } {
  const keys: (string | null)[] = [];
  let lost = 0;
  return {
    keys,
    fetch: async (input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      const res = await fetch(input, init);
      if (lost++ >= lose) return res;
      await res.text();
      throw new TypeError('fetch failed: the connection was reset');
    },
  };
}

describe('SDK: Idempotency-Key', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('sends the key; the same command again answers the first task; another command is BadParamsError', async () => {
    const c = client(t);
    const first = await c.unlock(LOCK_A, { idempotencyKey: 'sdk-key-1' });
    assert.deepEqual(await c.unlock(LOCK_A, { idempotencyKey: 'sdk-key-1' }), first);
    await assert.rejects(c.lock(LOCK_A, { idempotencyKey: 'sdk-key-1' }), BadParamsError);
    await assert.rejects(c.sync(LOCK_A, { idempotencyKey: '' }), BadParamsError);
    await waitForTask(t, first.task_id);
    const partner = await c.partnerAutomation(
      { command: 'lock', deviceId: LOCK_A },
      { idempotencyKey: 'sdk-p' },
    );
    assert.deepEqual(
      await c.partnerAutomation({ command: 'lock', deviceId: LOCK_A }, { idempotencyKey: 'sdk-p' }),
      partner,
    );
    await waitForTask(t, partner.task_id);
    const ran = await c.run(LOCK_A, 'unlock', { idempotencyKey: 'sdk-run' });
    assert.equal(ran.successful, true);
    assert.deepEqual(await c.unlock(LOCK_A, { idempotencyKey: 'sdk-run' }), { task_id: ran.task_id });
  });

  it('with retry on, sends a command whose answer was lost again with the same key: one task', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 0 });
    const losing = losingFetch(1);
    const retries: RetryInfo[] = [];
    const c = client(t, { fetch: losing.fetch, retry: { onRetry: (info) => retries.push(info) } });
    const { task_id } = await c.lock(LOCK_B, { idempotencyKey: 'sdk-lost-1' });
    // The first request reached the server (its answer was lost), the second answered its task.
    assert.deepEqual(losing.keys, ['sdk-lost-1', 'sdk-lost-1']);
    assert.equal(retries.length, 1);
    assert.ok(retries[0]?.error instanceof ConnectionError);
    assert.deepEqual(await client(t).lock(LOCK_B, { idempotencyKey: 'sdk-lost-1' }), { task_id });
    await waitForTask(t, task_id);
  });

  it('never sends a command again after a lost answer without a key, nor with retries off', async () => {
    const withoutKey = losingFetch(1);
    await assert.rejects(client(t, { fetch: withoutKey.fetch, retry: true }).unlock(LOCK_B), ConnectionError);
    assert.deepEqual(withoutKey.keys, [null]);
    const retriesOff = losingFetch(1);
    await assert.rejects(
      client(t, { fetch: retriesOff.fetch }).unlock(LOCK_B, { idempotencyKey: 'sdk-lost-2' }),
      ConnectionError,
    );
    assert.deepEqual(retriesOff.keys, ['sdk-lost-2']);
  });
});
