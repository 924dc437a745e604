/**
 * The live stream's life (docs/events.md, "The live stream"): heartbeats, a client too slow to keep
 * up closed `too_slow` and resuming by id, the server's shutdown closing streams `shutting_down`
 * without holding up close(), and a resume across a restart on the same SQLite file.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { accountEvent, type EventDraft, sessionActor } from '../../../src/domain/event.ts';
import { eventually } from '../../support/eventually.ts';
import {
  LOCK_A,
  OWNER,
  OWNER_KEY,
  simLockOk,
  standardSeed,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type LockEventJson, SseClient } from '../../support/sse.ts';

const open = (t: TestServer, headers: Record<string, string> = {}, query = '') =>
  SseClient.open(`${t.url}/ext/events/stream${query}`, { authorization: OWNER_KEY, ...headers });

/**
 * A device id of the owner's log that no simulated lock has: a stream filtered to it gets the
 * test's own events only, not what the simulator happens to report meanwhile (an access point
 * reconnecting on a loaded machine is a lock.online too).
 */
const PADDED = 'padded-events-only';

async function listed(t: TestServer, afterId: string): Promise<LockEventJson[]> {
  const res = await t.request(`/ext/events?limit=500&after=${afterId}`, { key: OWNER_KEY });
  assert.equal(res.status, 200);
  return ((await res.json()) as { events: LockEventJson[] }).events;
}

const TOTAL = 8000;
const SECOND_KEY = 'owner-second-key-0009';
const keys = standardSeed().api_keys ?? [];

const closeFrame = (s: SseClient) => {
  const last = s.frames.at(-1);
  assert.equal(last?.event, 'close', 'the last frame is the close');
  return JSON.parse(last?.data ?? '') as { reason: string; last_event_id: string | null };
};

describe('the live stream over time', () => {
  it('sends a heartbeat comment every --event-stream-heartbeat-ms', async () => {
    const t = await startServer({ flags: ['--event-stream-heartbeat-ms', '20'] });
    try {
      const s = await open(t);
      await s.waitFor('two heartbeats', (f) => f.filter((x) => x.comment === 'heartbeat').length >= 2);
      s.close();
    } finally {
      await t.close();
    }
  });

  it('closes a client that leaves too much unread with too_slow; it resumes by the id it got', async () => {
    // Pages of 500 events of 3 KB (1.5 MB) fit; 24 MB unread do not, past the kernel's buffers.
    const t = await startServer({ flags: ['--event-stream-buffer-bytes', String(2 * 1024 * 1024)] });
    try {
      const slow = await open(t, {}, `?device_id=${PADDED}`);
      slow.pause();
      const owner = await t.server.store.accounts.findByEmail(OWNER);
      assert.ok(owner);
      // Large events, written straight to the log: more than the kernel's buffers hold.
      const pad = 'x'.repeat(3000);
      const drafts: EventDraft[] = Array.from({ length: TOTAL }, (_, i) => ({
        type: 'lock.online',
        accountId: owner.id,
        deviceId: PADDED,
        actor: { kind: 'device' },
        method: null,
        taskId: null,
        data: { i, pad },
      }));
      for (let i = 0; i < TOTAL; i += 500) await t.server.lockcloud.eventLog.append(drafts.slice(i, i + 500));
      await eventually(
        'the server to give up on the stream',
        () => t.server.lockcloud.eventStreams.count === 0,
      );
      slow.resume();
      await slow.waitForEnd();
      const close = closeFrame(slow);
      const got = slow.events;
      assert.equal(close.reason, 'too_slow');
      assert.ok(got.length < TOTAL, 'closed before the end');
      assert.equal(close.last_event_id, got.at(-1)?.id ?? null, 'the last event it was sent');
      assert.deepEqual(
        got.map((e) => e.data),
        drafts.slice(0, got.length).map((d) => d.data),
      );
      // It resumes where it stopped: the rest, once each.
      const again = await open(
        t,
        close.last_event_id === null ? {} : { 'last-event-id': close.last_event_id },
        `?device_id=${PADDED}`,
      );
      if (close.last_event_id !== null) {
        const rest = await again.waitForEvents(TOTAL - got.length);
        assert.deepEqual(
          rest.map((e) => (e.data as { i: number }).i),
          drafts.slice(got.length).map((_, k) => got.length + k),
        );
      }
      again.close();
    } finally {
      await t.close();
    }
  });

  it("ends a stream with unauthorized when its key is deleted; the account's other streams go on", async () => {
    const t = await startServer({
      seed: { ...standardSeed(), api_keys: [...keys, { account: OWNER, key: SECOND_KEY }] },
    });
    try {
      const doomed = await open(t);
      const other = await open(t, { authorization: SECOND_KEY });
      await simLockOk(t, LOCK_A, { locked: false });
      const [moved] = await doomed.waitForEvents(1);
      await other.waitForEvents(1);
      const owner = await t.server.store.accounts.findByEmail(OWNER);
      const principal = await t.server.lockcloud.auth.fromHeader(OWNER_KEY);
      assert.ok(owner && moved);
      // As the dashboard's API Settings delete a key: the key and its event in one transaction.
      const removed = await t.server.store.apiKeys.remove(owner.id, principal.keyId, (gone) =>
        t.server.lockcloud.eventLog.stampAll([
          accountEvent('api_key.deleted', owner.id, sessionActor(owner.id), {
            key_id: gone.id,
            key_prefix: gone.prefix,
          }),
        ]),
      );
      assert.ok(removed);
      await doomed.waitForEnd();
      assert.deepEqual(closeFrame(doomed), { reason: 'unauthorized', last_event_id: moved.id });
      const [, deleted] = await other.waitForEvents(2);
      assert.equal(deleted?.type, 'api_key.deleted');
      assert.equal(other.ended, false);
      other.close();
    } finally {
      await t.close();
    }
  });

  it('ends streams with shutting_down at close, and resumes after a restart on the same file', async () => {
    const first = await startServer();
    let locked = true;
    const turn = async (t: TestServer) => {
      locked = !locked;
      await simLockOk(t, LOCK_A, { locked });
    };
    const s = await open(first);
    await turn(first);
    await turn(first);
    await s.waitForEvents(2);
    // close() resolves (the stream does not hold it up) and the client hears why.
    await first.server.close();
    await s.waitForEnd();
    const close = closeFrame(s);
    assert.deepEqual(close, { reason: 'shutting_down', last_event_id: s.events.at(-1)?.id });
    assert.ok(close.last_event_id);

    const second = await startServer({ dataDir: first.dataDir });
    try {
      await turn(second);
      await turn(second);
      const expected = await listed(second, close.last_event_id);
      assert.ok(expected.length >= 2);
      const resumed = await open(second, { 'last-event-id': close.last_event_id });
      await resumed.waitForEvents(expected.length);
      assert.deepEqual(
        resumed.events.map((e) => e.id),
        expected.map((e) => e.id),
      );
      resumed.close();
    } finally {
      await second.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
