/**
 * GET /dashboard/api/events/stream, the lock page's live stream: the same stream as
 * GET /ext/events/stream (test/http/ext/event-stream*.test.ts), with the dashboard's session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCK_A, OTHER, OWNER, simLockOk, startServer, type TestServer } from '../support/server.ts';
import { SseClient } from '../support/sse.ts';
import { FormClient } from './support.ts';

describe('GET /dashboard/api/events/stream', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it("answers the dashboard API's 401 JSON without a session", async () => {
    const res = await fetch(`${t.url}/dashboard/api/events/stream`);
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: 'UNAUTHORIZED', message: 'Log in again.' });
  });

  it("streams the signed-in account's view: the owner's events whole, a guest's redacted", async () => {
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    const guest = new FormClient(t);
    await guest.logIn(OTHER, 'other-password');
    const path = `${t.url}/dashboard/api/events/stream?device_id=${LOCK_A}`;
    const mine = await SseClient.open(path, { cookie: owner.cookieHeader() });
    const theirs = await SseClient.open(path, { cookie: guest.cookieHeader() });
    assert.equal(mine.status, 200);
    assert.equal(mine.headers['content-type'], 'text/event-stream; charset=utf-8');
    await simLockOk(t, LOCK_A, { locked: false });
    const [full] = await mine.waitForEvents(1);
    const [seen] = await theirs.waitForEvents(1);
    assert.equal(full?.type, 'lock.unlocked');
    assert.deepEqual(seen, { ...full, actor: { kind: full?.actor.kind }, task_id: null });
    const bad = await fetch(`${path}&type=X`, { headers: { cookie: owner.cookieHeader() } });
    assert.equal(bad.status, 400);
    mine.close();
    theirs.close();
  });
});
