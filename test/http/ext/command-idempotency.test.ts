/**
 * Idempotency-Key on the /ext command route (issue 21, point 5: "any /ext command route"), as on
 * v3: the same key with the same request within 24 h answers the same task, for the owner and for a
 * guest through its grant; the key with another command, another lock or on v3 is 400; a malformed
 * one is 400 before the lock is looked at; a refusal leaves no key behind; keys are per account;
 * the SDK sends it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LockcloudClient } from '../../../sdk/src/index.ts';
import { eventually } from '../../support/eventually.ts';
import { LOCK_A, LOCK_B, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { GUEST_KEY, granted, grantSeed, invite, json, revoke } from './grant-support.ts';
import { expectExtError } from './helpers.ts';

interface TaskJson {
  task_id: string;
  status: string;
}

function command(
  t: TestServer,
  deviceId: string,
  cmd: string,
  idempotencyKey: string | undefined,
  key = OWNER_KEY,
): Promise<Response> {
  return t.request(`/ext/locks/${deviceId}/commands`, {
    method: 'POST',
    key,
    json: { command: cmd },
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });
}

const accepted = async (res: Response, what: string) => (await json<TaskJson>(res, 202, what)).task_id;

/** Waits for the task to end, so the lock takes the next command. */
function ended(t: TestServer, taskId: string, key = OWNER_KEY): Promise<true> {
  return eventually(`task ${taskId} to end`, async () => {
    const task = await json<TaskJson>(await t.request(`/ext/tasks/${taskId}`, { key }), 200, 'task');
    return task.status === 'terminated';
  });
}

/** How many tasks the lock's log says were requested. */
async function requested(t: TestServer, deviceId: string): Promise<number> {
  const res = await t.request(`/ext/events?device_id=${deviceId}&type=command.requested&limit=500`, {
    key: OWNER_KEY,
  });
  return (await json<{ events: unknown[] }>(res, 200, 'events')).events.length;
}

describe('/ext commands with an Idempotency-Key', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
  });

  it("the owner's repeat answers the first task, and makes none", async () => {
    const before = await requested(t, LOCK_A);
    const first = await accepted(await command(t, LOCK_A, 'sync', 'owner-key-1'), 'first');
    const again = await accepted(await command(t, LOCK_A, 'sync', 'owner-key-1'), 'repeat');
    assert.equal(again, first);
    await ended(t, first);
    assert.equal(await accepted(await command(t, LOCK_A, 'sync', 'owner-key-1'), 'ended'), first);
    assert.equal(await requested(t, LOCK_A), before + 1, 'one task for three requests');
    // Without the key, each request is a command of its own.
    const plain = await accepted(await command(t, LOCK_A, 'sync', undefined), 'no key');
    assert.notEqual(plain, first);
    await ended(t, plain);
  });

  it("the SDK's client.locks.command sends it as idempotencyKey", async () => {
    const client = new LockcloudClient({ baseUrl: t.url, apiKey: OWNER_KEY });
    const first = await client.locks.command(LOCK_B, 'sync', { idempotencyKey: 'sdk-key' });
    const again = await client.locks.command(LOCK_B, 'sync', { idempotencyKey: 'sdk-key' });
    assert.equal(again.task_id, first.task_id);
    await ended(t, first.task_id);
  });

  it('the key with another command, another lock or on v3 is 400; a malformed key is 400', async () => {
    await ended(t, await accepted(await command(t, LOCK_A, 'sync', 'owner-key-2'), 'first'));
    const reused = /Idempotency-Key was used for another request/;
    await expectExtError(
      await command(t, LOCK_A, 'lock', 'owner-key-2'),
      400,
      'BAD_PARAMS',
      reused,
      'command',
    );
    await expectExtError(await command(t, LOCK_B, 'sync', 'owner-key-2'), 400, 'BAD_PARAMS', reused, 'lock');
    const v3 = await t.request(`/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'sync' },
      headers: { 'idempotency-key': 'owner-key-2' },
    });
    assert.deepEqual([v3.status, await v3.json()], [400, { error: 'BAD_PARAMS' }], 'v3, same request');
    await expectExtError(await command(t, LOCK_A, 'sync', ''), 400, 'BAD_PARAMS', /empty/, 'empty key');
    // Checked before the lock: a malformed key on a lock that is not the account's is still 400.
    await expectExtError(
      await command(t, 'no-such-lock', 'sync', 'x'.repeat(256)),
      400,
      'BAD_PARAMS',
      /Idempotency-Key/,
      'too long',
    );
  });

  it("a guest's repeat answers its first task; the owner's same key is the owner's own", async () => {
    const grant = await granted(t, LOCK_B, { role: 'operate' });
    const first = await accepted(await command(t, LOCK_B, 'sync', 'shared-key', GUEST_KEY), 'guest');
    assert.equal(await accepted(await command(t, LOCK_B, 'sync', 'shared-key', GUEST_KEY), 'again'), first);
    await ended(t, first, GUEST_KEY);
    const owners = await accepted(await command(t, LOCK_B, 'sync', 'shared-key'), 'owner, same key');
    assert.notEqual(owners, first, 'keys are per account');
    await ended(t, owners);
    assert.equal((await revoke(t, LOCK_B, grant.id)).status, 204);
  });

  it('a refused command leaves no key: the same key works once the grant allows it', async () => {
    const view = await granted(t, LOCK_B, { role: 'view' });
    await expectExtError(
      await command(t, LOCK_B, 'sync', 'guest-key-2', GUEST_KEY),
      403,
      'ACCESS_DENY',
      /view only/,
      'view grant',
    );
    assert.equal((await revoke(t, LOCK_B, view.id)).status, 204);
    const pending = await invite(t, LOCK_B, { role: 'operate' });
    const res = await t.request(`/ext/invitations/${pending.id}/accept`, { method: 'POST', key: GUEST_KEY });
    assert.equal(res.status, 200);
    const task = await accepted(await command(t, LOCK_B, 'sync', 'guest-key-2', GUEST_KEY), 'now operate');
    await ended(t, task, GUEST_KEY);
  });
});
