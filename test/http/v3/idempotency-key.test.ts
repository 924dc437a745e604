/**
 * Idempotency-Key on v3's command endpoints (issue 21, point 5; docs/errors.md, "Idempotency-Key"):
 * repeats answer the first task, another request with the key is BAD_PARAMS, malformed keys are
 * BAD_PARAMS, refusals are not remembered, keys are per account and last 24 h.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { eventually } from '../../support/eventually.ts';
import { httpMessage, rawRequest } from '../../support/raw-http.ts';
import {
  actionResult,
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { BAD_PARAMS, FLAGS, LOW_BATTERY, occupy, UNAUTHORIZED, UNKNOWN_LOCK } from './post-lock-helpers.ts';

const HOUR = 3600;

function post(t: TestServer, deviceId: string, command: string, idempotencyKey?: string, key = OWNER_KEY) {
  return t.request(`/public/lock/${deviceId}`, {
    method: 'POST',
    key,
    json: { command },
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });
}

function partner(t: TestServer, deviceId: string, command: string, idempotencyKey?: string, key = OWNER_KEY) {
  return t.request('/public/partners/automation', {
    method: 'POST',
    json: { command, apikey: key, device_id: deviceId },
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });
}

async function taskIdOf(res: Response): Promise<string> {
  const { status, body } = await answer(res);
  assert.equal(status, 200, JSON.stringify(body));
  const { task_id } = body as { task_id: string };
  assert.equal(typeof task_id, 'string');
  return task_id;
}

describe('Idempotency-Key on v3 commands', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('answers the same request again with the first task_id, byte for byte, while it runs and after', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 2_000 });
    const first = await post(t, LOCK_A, 'unlock', 'order-1');
    const firstText = await first.text();
    const { task_id } = JSON.parse(firstText) as { task_id: string };
    // Without the key the lock is busy: with it, the repeat is the first answer, not a new command.
    const repeat = await post(t, LOCK_A, 'unlock', 'order-1');
    assert.equal(repeat.status, 200);
    assert.equal(await repeat.text(), firstText);
    assert.equal((await answer(await post(t, LOCK_A, 'unlock'))).status, 400, 'busy without a key');
    await advanceClock(t, 2);
    assert.deepEqual(await waitForTask(t, task_id), { status: 'terminated', successful: true });
    assert.equal(await taskIdOf(await post(t, LOCK_A, 'unlock', 'order-1')), task_id);
    // The draft's quoted form names the same key.
    assert.equal(await taskIdOf(await post(t, LOCK_A, 'unlock', '"order-1"')), task_id);
  });

  it('answers every one of concurrent requests with one key the same task_id: one command runs', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 5_000 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(t, LOCK_B, 'lock', 'burst')));
    const ids = await Promise.all(answers.map(taskIdOf));
    assert.equal(new Set(ids).size, 1, `one task: ${ids.join(', ')}`);
    // A second command would have met the first as busy; none did, so exactly one task was made.
    const [id] = ids as [string];
    assert.deepEqual(await answer(await actionResult(t, id)), {
      status: 200,
      body: { status: 'processing', task_id: id },
    });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, id), { status: 'terminated', successful: true });
  });

  it('refuses the key with another lock, command or endpoint: 400 BAD_PARAMS, and sends nothing', async () => {
    const id = await taskIdOf(await post(t, LOCK_A, 'unlock', 'k-1'));
    await waitForTask(t, id);
    for (const res of [
      await post(t, LOCK_A, 'lock', 'k-1'),
      await post(t, LOCK_B, 'unlock', 'k-1'),
      await partner(t, LOCK_A, 'unlock', 'k-1'),
    ]) {
      assert.equal(res.status, 400);
      assert.equal(await res.text(), '{"error":"BAD_PARAMS"}');
    }
    // The lock is free (no command was sent by the refused requests) and still unlocked.
    assert.deepEqual(await answer(await t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY })), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
    assert.equal(
      await taskIdOf(await post(t, LOCK_A, 'unlock', 'k-1')),
      id,
      'the first request still answers',
    );
  });

  it('works on the partner endpoint the same way', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 1_000 });
    const id = await taskIdOf(await partner(t, LOCK_A, 'lock', 'p-1'));
    assert.equal(await taskIdOf(await partner(t, LOCK_A, 'lock', 'p-1')), id);
    assert.deepEqual(await answer(await partner(t, LOCK_A, 'unlock', 'p-1')), BAD_PARAMS);
    assert.deepEqual(await answer(await post(t, LOCK_A, 'lock', 'p-1')), BAD_PARAMS);
    await advanceClock(t, 1);
    await waitForTask(t, id);
  });

  it('refuses a malformed key with 400 BAD_PARAMS: empty, over 255, a space, a control or non-ASCII byte', async () => {
    // A slow lock: any of these that ran would keep it busy.
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    for (const bad of ['', '   ', 'a'.repeat(256), 'two words', '""', '"unterminated\\"', '"a"b"']) {
      assert.deepEqual(await answer(await post(t, LOCK_A, 'unlock', bad)), BAD_PARAMS, JSON.stringify(bad));
      assert.deepEqual(
        await answer(await partner(t, LOCK_A, 'unlock', bad)),
        BAD_PARAMS,
        JSON.stringify(bad),
      );
    }
    // Bytes fetch will not send, over a raw socket.
    for (const bytes of ['caf\xe9', 'tab\there', 'nul\x01']) {
      const res = await rawRequest(
        t.url,
        Buffer.from(
          httpMessage(
            `POST /public/lock/${LOCK_A} HTTP/1.1`,
            { authorization: OWNER_KEY, 'content-type': 'application/json', 'idempotency-key': bytes },
            '{"command":"unlock"}',
          ),
          'latin1',
        ),
      );
      assert.equal(res.status, 400, JSON.stringify(bytes));
      assert.equal(res.text, '{"error":"BAD_PARAMS"}');
    }
    // None of them made a command: the lock is free.
    const id = await taskIdOf(await post(t, LOCK_A, 'lock'));
    await advanceClock(t, 16);
    await waitForTask(t, id);
  });

  it('accepts a key of 255 visible ASCII characters, bare or quoted with escapes', async () => {
    const longest = `${'!~'.repeat(127)}k`;
    assert.equal(longest.length, 255);
    const id = await taskIdOf(await post(t, LOCK_A, 'unlock', longest));
    assert.equal(await taskIdOf(await post(t, LOCK_A, 'unlock', longest)), id);
    await waitForTask(t, id);
    const escaped = await taskIdOf(await post(t, LOCK_B, 'lock', '"quote\\"and\\\\slash"'));
    assert.equal(await taskIdOf(await post(t, LOCK_B, 'lock', 'quote"and\\slash')), escaped);
    await waitForTask(t, escaped);
  });

  it('checks the API key first: 401 whatever the Idempotency-Key', async () => {
    assert.deepEqual(await answer(await post(t, LOCK_A, 'unlock', '', 'no-such-key')), UNAUTHORIZED);
    assert.deepEqual(await answer(await partner(t, LOCK_A, 'unlock', '', 'no-such-key')), UNAUTHORIZED);
  });

  it('does not remember a refused first request: the same request succeeds once the cause is gone', async () => {
    // Busy.
    const running = await occupy(t, LOCK_A);
    const busy = await answer(await post(t, LOCK_A, 'unlock', 'retry-me'));
    assert.equal(busy.status, 400);
    assert.match(String((busy.body as { error: string }).error), /^DEVICE_IS_BUSY \d+$/);
    await advanceClock(t, 16);
    await waitForTask(t, running);
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
    const id = await taskIdOf(await post(t, LOCK_A, 'unlock', 'retry-me'));
    assert.deepEqual(await waitForTask(t, id), { status: 'terminated', successful: true });

    // Low battery.
    await simLockOk(t, LOCK_B, { battery: 5 });
    assert.deepEqual(await answer(await post(t, LOCK_B, 'lock', 'battery')), LOW_BATTERY);
    await simLockOk(t, LOCK_B, { battery: 90 });
    await waitForTask(t, await taskIdOf(await post(t, LOCK_B, 'lock', 'battery')));

    // An unknown lock: the key is free for any request after.
    assert.deepEqual(await answer(await post(t, UNKNOWN_LOCK, 'lock', 'unknown')), BAD_PARAMS);
    await waitForTask(t, await taskIdOf(await post(t, LOCK_B, 'unlock', 'unknown')));
  });

  it('remembers a command that was accepted and then failed at the lock: its task is the answer', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const id = await taskIdOf(await post(t, LOCK_A, 'lock', 'jam'));
    assert.deepEqual(await waitForTask(t, id), { status: 'terminated', successful: false, error: 'JAMMED' });
    assert.equal(await taskIdOf(await post(t, LOCK_A, 'lock', 'jam')), id);
  });

  it("keeps keys per account: another account's same key makes its own task", async () => {
    const mine = await taskIdOf(await post(t, LOCK_A, 'unlock', 'shared-key'));
    // LOCK_A is shared with the other account, which may not command it: its refusal, not my task.
    assert.deepEqual(await answer(await post(t, LOCK_A, 'unlock', 'shared-key', OTHER_KEY)), BAD_PARAMS);
    const theirs = await taskIdOf(await post(t, OTHER_LOCK, 'unlock', 'shared-key', OTHER_KEY));
    assert.notEqual(theirs, mine);
    await waitForTask(t, mine);
    await waitForTask(t, theirs, OTHER_KEY);
  });

  it('forgets a key 24 h after its first use: the same request then sends a new command', async () => {
    const first = await taskIdOf(await post(t, LOCK_A, 'unlock', 'daily'));
    await waitForTask(t, first);
    await advanceClock(t, 24 * HOUR - 60);
    assert.equal(await taskIdOf(await post(t, LOCK_A, 'unlock', 'daily')), first);
    await advanceClock(t, 60);
    const second = await taskIdOf(await post(t, LOCK_A, 'unlock', 'daily'));
    assert.notEqual(second, first);
    await waitForTask(t, second);
  });

  it('is forgotten by the hourly purge once expired, and by a sandbox reset', async () => {
    const stored = (key: string): number => {
      const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
      try {
        const hash = createHash('sha256').update(key).digest('hex');
        return (
          db.prepare('SELECT count(*) AS n FROM idempotency_keys WHERE key_hash = ?').get(hash) as {
            n: number;
          }
        ).n;
      } finally {
        db.close();
      }
    };
    await waitForTask(t, await taskIdOf(await post(t, LOCK_A, 'unlock', 'purged')));
    assert.equal(stored('purged'), 1, 'kept as its SHA-256');
    assert.equal(stored('unknown'), 0);
    // The purges run each hour on the clock, the next round armed once one has done its work: one
    // long move may run only its first round; a round an hour later, past the key's 24 h, forgets it.
    await advanceClock(t, 25 * HOUR);
    await advanceClock(t, HOUR);
    await eventually('the hourly purge to forget the key', async () => stored('purged') === 0);

    const before = await taskIdOf(await post(t, LOCK_B, 'lock', 'before-reset'));
    await waitForTask(t, before);
    assert.equal((await t.request('/_sim/reset', { method: 'POST' })).status, 204);
    assert.equal(stored('before-reset'), 0);
    const after = await taskIdOf(await post(t, LOCK_B, 'lock', 'before-reset'));
    assert.notEqual(after, before);
    await waitForTask(t, after);
  });
});
