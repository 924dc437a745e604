/**
 * What commands do with a lock's health (docs/locks.md, "Commands and a lock's health"), through the
 * server's own simulated devices on protocol 2: a jammed lock is still sent lock and unlock, which the
 * device refuses as JAMMED (v3's task error, v1's 50005 LockJammed, both documented), sync succeeds,
 * and a hand turn frees it; a lock asked to lock with its door open locks and says so in the event.
 * The API Settings webhook stays on locked and unlocked changes only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  answer,
  LOCK_A,
  OWNER,
  OWNER_KEY,
  simLockOk,
  standardSeed,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { control, login, V1 } from '../v1/helpers.ts';

interface EventJson {
  type: string;
  method: string | null;
  task_id: string | null;
  data: Record<string, unknown>;
}

describe("commands and a lock's health", () => {
  let t: TestServer;
  let receiver: Receiver;
  let token: string;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({
      flags: ['--no-rate-limit'],
      seed: {
        ...standardSeed(),
        webhooks: [{ account: OWNER, url: `${receiver.url}/hook/{device_id}/{state}` }],
      },
    });
    token = await login(t, OWNER);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const events = async (query: string): Promise<EventJson[]> => {
    const res = await t.request(`/ext/events?device_id=${LOCK_A}&limit=500&${query}`, { key: OWNER_KEY });
    return ((await res.json()) as { events: EventJson[] }).events;
  };

  it('a jammed lock is sent lock and unlock, and they fail JAMMED on v3 and LockJammed on v1', async () => {
    await simLockOk(t, LOCK_A, { jammed: true });
    const unlock = await waitForTask(t, await startTask(t, LOCK_A, 'unlock'));
    assert.deepEqual(
      { status: unlock.status, successful: unlock.successful, error: unlock.error },
      { status: 'terminated', successful: false, error: 'JAMMED' },
    );
    assert.deepEqual(await answer(await control(t, token, LOCK_A, 'unlock')), V1.JAMMED);
    // sync moves nothing: it succeeds, and the lock is still jammed and still locked.
    const sync = await waitForTask(t, await startTask(t, LOCK_A, 'sync'));
    assert.equal(sync.successful, true);
    const lock = (await (await t.request(`/ext/locks/${LOCK_A}`, { key: OWNER_KEY })).json()) as {
      jammed: boolean;
      locked: boolean;
    };
    assert.deepEqual({ jammed: lock.jammed, locked: lock.locked }, { jammed: true, locked: true });
    const failed = (await events('type=command.failed')).map((e) => e.data);
    assert.deepEqual(failed.at(-1), { command: 'unlock', reason: 'JAMMED' });
    assert.ok((await events('type=lock.jammed')).length === 1, 'one lock.jammed for the jam');
  });

  it('a turn by hand frees it: lock.unjammed, and commands work again', async () => {
    await simLockOk(t, LOCK_A, { locked: false });
    assert.equal((await events('type=lock.unjammed')).length, 1);
    const lock = await waitForTask(t, await startTask(t, LOCK_A, 'lock'));
    assert.equal(lock.successful, true);
  });

  it('locking with the door open locks, and its lock.locked event says the door was open', async () => {
    assert.equal((await waitForTask(t, await startTask(t, LOCK_A, 'unlock'))).successful, true);
    await simLockOk(t, LOCK_A, { door: 'open' });
    const taskId = await startTask(t, LOCK_A, 'lock');
    assert.equal((await waitForTask(t, taskId)).successful, true);
    const locked = (await events('type=lock.locked')).find((e) => e.task_id === taskId);
    assert.deepEqual(locked && { method: locked.method, data: locked.data }, {
      method: 'api_v3',
      data: { door: 'open' },
    });
    await simLockOk(t, LOCK_A, { door: 'closed' });
  });

  it('the API Settings webhook fired for the movements only, never for the health', async () => {
    await eventually('the webhooks of the movements', async () => receiver.requests.length >= 4);
    const states = receiver.requests.map((r) => r.url.split('/').at(-1));
    assert.ok(
      states.every((s) => s === 'locked' || s === 'unlocked'),
      JSON.stringify(states),
    );
    // The hand turn, lock, unlock, lock: four movements, four messages, none for the jam or the door.
    assert.deepEqual(states, ['unlocked', 'locked', 'unlocked', 'locked']);
  });
});
