/**
 * "It fires once for every real change of the lock state, whatever caused it ..., never for a
 * command that left the state as it was" (docs/decisions.md "Webhook").
 *
 * Counting: after every real change the log is polled until the dispatcher is idle and must hold
 * exactly the changes so far. A no-op is always followed by a real change of some lock, so a
 * message the no-op wrongly caused would have been written before that change's and would show in
 * the exact count and sequence.
 *
 * The simulator reports a hand turn at once (and, when the lock was out of reach, the moment it is
 * back in reach), so the cloud never holds a stale state that a sync could find: a sync is tested as
 * the no-op it then is, and the hand turn missed while unreachable as the change the cloud learns of
 * when the lock reports again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  actionResult,
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { deliveries, FLAGS, type LogEntry } from '../../support/webhooks.ts';
import { control, login } from '../v1/helpers.ts';
import { ownerHook, seedWithWebhooks, settle } from './helpers.ts';

const SUCCESS = { status: 'terminated', successful: true };

describe('exactly one delivery per real change, none for a no-op', () => {
  let receiver: Receiver;
  let t: TestServer;
  /** What the owner's receiver must have got so far, in order: "<device> <state>". */
  const expected: string[] = [];

  before(async () => {
    receiver = await startReceiver();
    t = await startServer({
      flags: FLAGS,
      seed: seedWithWebhooks([
        ownerHook(`${receiver.url}/owner/{device_id}/{state}`),
        { account: OTHER, url: `${receiver.url}/other/{device_id}/{state}` },
      ]),
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const ownerRequests = () => receiver.requests.filter((r) => r.url.startsWith('/owner/'));
  const asChange = (deviceId: string, state: string) => `${deviceId} ${state}`;

  /** A real change happened: the log and the receiver hold exactly `expected`, all delivered. */
  async function expectChange(deviceId: string, state: 'locked' | 'unlocked'): Promise<LogEntry[]> {
    expected.push(asChange(deviceId, state));
    const log = await settle(t, expected.length);
    assert.deepEqual(
      log.map((e) => {
        const match = /^.*\/owner\/([^/]+)\/([a-z]+)$/.exec(e.url);
        return match ? asChange(match[1] ?? '', match[2] ?? '') : e.url;
      }),
      expected,
    );
    assert.deepEqual(
      log.map((e) => [e.status, e.event, e.attempts]),
      expected.map(() => ['delivered', 'lock.state_changed', 1]),
    );
    const got = ownerRequests();
    assert.deepEqual(
      got.map((r) => {
        const body = JSON.parse(r.body) as { device_id: string; state: string };
        return asChange(body.device_id, body.state);
      }),
      expected,
    );
    assert.deepEqual(
      got.map((r) => r.headers['webhook-id']),
      log.map((e) => e.id),
    );
    return log;
  }

  async function v3(deviceId: string, command: string, outcome: unknown = SUCCESS): Promise<void> {
    const taskId = await startTask(t, deviceId, command);
    assert.deepEqual(await waitForTask(t, taskId), outcome);
  }

  it('a v3 unlock fires once; unlocking again and a sync that finds nothing new fire nothing', async () => {
    await v3(LOCK_A, 'unlock'); // locked -> unlocked
    await expectChange(LOCK_A, 'unlocked');
    await v3(LOCK_A, 'unlock'); // already unlocked
    await v3(LOCK_A, 'sync'); // nothing new on the lock
  });

  it('a v1 control fires once; locking an already locked lock through v1 fires nothing', async () => {
    const token = await login(t, OWNER);
    assert.deepEqual(await answer(await control(t, token, LOCK_A, 'lock')), { status: 204, body: '' });
    await expectChange(LOCK_A, 'locked');
    assert.deepEqual(await answer(await control(t, token, LOCK_A, 'lock')), { status: 204, body: '' });
    await v3(LOCK_A, 'lock'); // and through v3: still locked
  });

  it('a hand turn fires once; the same position again, or a battery or app change, fires nothing', async () => {
    await simLockOk(t, LOCK_A, { locked: false });
    await expectChange(LOCK_A, 'unlocked');
    await simLockOk(t, LOCK_A, { locked: false });
    await simLockOk(t, LOCK_A, { battery: 80 });
    await simLockOk(t, LOCK_A, { app_open: true });
    await simLockOk(t, LOCK_A, { app_open: false });
  });

  it('a failed command (jammed) and a busy refusal fire nothing', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    await v3(LOCK_A, 'lock', { status: 'terminated', successful: false, error: 'JAMMED' });
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'lock');
    const refused = await answer(
      await t.request(`/public/lock/${LOCK_A}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command: 'unlock' },
      }),
    );
    assert.equal(refused.status, 400);
    assert.match((refused.body as { error: string }).error, /^DEVICE_IS_BUSY/);
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    // The lock that went through counts; the jam and the refusal sent nothing.
    await expectChange(LOCK_A, 'locked');
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
  });

  it('a hand turn while out of reach fires nothing until the lock reports again, then once; a sync after it fires nothing', async () => {
    await simLockOk(t, LOCK_A, { responsive: false });
    await simLockOk(t, LOCK_A, { locked: false }); // the cloud cannot hear it
    await simLockOk(t, LOCK_B, { locked: true }); // a real change elsewhere, to count against
    await expectChange(LOCK_B, 'locked');
    await simLockOk(t, LOCK_A, { responsive: true }); // back in reach: it reports unlocked
    await expectChange(LOCK_A, 'unlocked');
    await v3(LOCK_A, 'sync');
    await v3(LOCK_B, 'sync');
  });

  it('a device answer after the command timed out still moves the lock: once', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 20_000 }); // past the 15 s command timeout
    const taskId = await startTask(t, LOCK_A, 'lock');
    await advanceClock(t, 21);
    assert.deepEqual((await answer(await actionResult(t, taskId))).body, {
      status: 'terminated',
      task_id: taskId,
      successful: false,
      error: 'TIMEOUT',
    });
    await expectChange(LOCK_A, 'locked');
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
  });

  it('the partner endpoint fires once; the same command again fires nothing', async () => {
    const partner = async (command: string) => {
      const { status, body } = await answer(
        await t.request('/public/partners/automation', {
          method: 'POST',
          json: { command, apikey: OWNER_KEY, device_id: LOCK_B },
        }),
      );
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(await waitForTask(t, (body as { task_id: string }).task_id), SUCCESS);
    };
    await partner('unlock'); // locked -> unlocked
    await expectChange(LOCK_B, 'unlocked');
    await partner('unlock');
    await simLockOk(t, LOCK_A, { locked: false }); // count against a real change
    await expectChange(LOCK_A, 'unlocked');
  });

  it("only the owner's webhook hears a lock: the account it is shared with gets its own locks' changes only", async () => {
    // LOCK_A is shared with OTHER and changed many times above; OTHER's webhook heard none of it.
    await simLockOk(t, OTHER_LOCK, { locked: false });
    await eventually('the other account to settle', async () => {
      const log = await deliveries(t, OTHER_KEY);
      return log.length >= 1 && log.every((e) => e.status === 'delivered');
    });
    const otherLog = await deliveries(t, OTHER_KEY);
    assert.deepEqual(
      otherLog.map((e) => e.device_id),
      [OTHER_LOCK],
    );
    assert.deepEqual(
      receiver.requests.filter((r) => r.url.startsWith('/other/')).map((r) => r.url),
      [`/other/${OTHER_LOCK}/unlocked`],
    );
    // And the owner's count is still exact.
    assert.equal((await settle(t, expected.length)).length, expected.length);
    assert.equal(ownerRequests().length, expected.length);
  });
});
