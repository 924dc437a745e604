/**
 * Idempotency-Keys are per account (issue 21, point 5): one account's key, sent by any other account
 * with the very same request, answers that account's own answer (its refusal for a lock it may not
 * command, a task of its own for its own lock), never the first account's task. On both command
 * endpoints, with every account of the matrix's world.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitForTask } from '../support/server.ts';
import { ACTORS, type Actor, LOCKS, PEOPLE, relock, settle, startWorld, type World } from './world.ts';

type Endpoint = 'v3' | 'partner';

function command(w: World, endpoint: Endpoint, actor: Actor, deviceId: string, key: string) {
  const headers = { 'content-type': 'application/json', 'idempotency-key': key };
  return endpoint === 'v3'
    ? fetch(`${w.t.url}/public/lock/${deviceId}`, {
        method: 'POST',
        headers: { ...headers, authorization: PEOPLE[actor].key },
        body: JSON.stringify({ command: 'unlock' }),
      })
    : fetch(`${w.t.url}/public/partners/automation`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ command: 'unlock', apikey: PEOPLE[actor].key, device_id: deviceId }),
      });
}

describe('authorization: Idempotency-Keys are per account', () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());

  for (const endpoint of ['v3', 'partner'] as const)
    it(`never answers one account's task to another with the same key (${endpoint})`, async () => {
      for (const first of ACTORS) {
        const own = LOCKS.find((l) => l.owner === first);
        assert.ok(own);
        const key = `scope-${endpoint}-${first}`;
        const res = await command(w, endpoint, first, own.deviceId, key);
        assert.equal(res.status, 200, await res.clone().text());
        const { task_id: firstTask } = (await res.json()) as { task_id: string };
        for (const other of ACTORS.filter((a) => a !== first)) {
          // The same request, another account: refused as the matrix refuses it (a shared lock
          // or a stranger's gives no right to command it), with no trace of the first task.
          const same = await command(w, endpoint, other, own.deviceId, key);
          assert.equal(same.status, 400, `${other} with ${first}'s key`);
          assert.equal(await same.text(), '{"error":"BAD_PARAMS"}');
          // Its own lock with that key: a task of its own.
          const mine = LOCKS.find((l) => l.owner === other);
          assert.ok(mine);
          const ownRes = await command(w, endpoint, other, mine.deviceId, key);
          assert.equal(ownRes.status, 200, await ownRes.clone().text());
          const { task_id } = (await ownRes.json()) as { task_id: string };
          assert.notEqual(task_id, firstTask);
          await waitForTask(w.t, task_id, PEOPLE[other].key);
          await relock(w, other, mine.deviceId);
        }
        await waitForTask(w.t, firstTask, PEOPLE[first].key);
        await relock(w, first, own.deviceId);
      }
      await settle(w);
    });
});
