/**
 * GET /ext/events/stream, black-box (docs/events.md, "The live stream"): the wire format, events in
 * order with their ids, the filters, a guest's view and a share ended mid-stream, resuming by
 * Last-Event-ID (header and query) with no gap and no duplicate, and the refusals.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sessionActor, shareEvent } from '../../../src/domain/event.ts';
import { eventually } from '../../support/eventually.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type LockEventJson, SseClient } from '../../support/sse.ts';
import { expectExtError } from './helpers.ts';

/** Every event GET /ext/events lists to the key after `afterId`, oldest first. */
async function listed(t: TestServer, key: string, query: string): Promise<LockEventJson[]> {
  const limit = query.includes('limit=') ? '' : '&limit=500';
  const res = await t.request(`/ext/events?x=1${limit}${query}`.replace('x=1&', ''), { key });
  assert.equal(res.status, 200);
  return ((await res.json()) as { events: LockEventJson[] }).events;
}

const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);

describe('GET /ext/events/stream', () => {
  let t: TestServer;
  const open = (key: string, query = '', headers: Record<string, string> = {}) =>
    SseClient.open(`${t.url}/ext/events/stream${query}`, { authorization: key, ...headers });
  const streams: SseClient[] = [];
  const tracked = async (p: Promise<SseClient>) => {
    const s = await p;
    streams.push(s);
    return s;
  };
  /** Moves lock A (and B) by hand: lock events in the owner's log and, for A, the guest's. */
  let locked = true;
  const turn = async (lock = LOCK_A) => {
    locked = !locked;
    await simLockOk(t, lock, { locked });
  };

  before(async () => {
    t = await startServer({ flags: ['--event-streams-per-account', '3'] });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await eventually('every stream to be forgotten', () => t.server.lockcloud.eventStreams.count === 0);
  });
  after(() => t.close());

  it('answers 200 text/event-stream with retry, then each new event once, in order, with its id', async () => {
    const s = await tracked(open(OWNER_KEY));
    assert.equal(s.status, 200);
    assert.equal(s.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(s.headers['cache-control'], 'no-store');
    assert.equal(s.headers['x-accel-buffering'], 'no');
    assert.ok(s.headers['x-request-id']);
    await s.waitFor('the retry line', (f) => f.length >= 1);
    assert.deepEqual(s.frames[0], { retry: '3000' });
    const [first] = await listed(t, OWNER_KEY, '&order=newest-first&limit=1');
    for (let i = 0; i < 4; i++) await turn();
    const expected = await listed(t, OWNER_KEY, first ? `&after=${first.id}` : '');
    assert.ok(expected.length >= 4);
    const got = await s.waitForEvents(expected.length);
    assert.deepEqual(got, expected, 'the events as GET /ext/events lists them, in order');
    const frames = s.frames.filter((f) => f.event === 'lock_event');
    assert.deepEqual(
      frames.map((f) => f.id),
      ids(expected),
      'id: is the event id',
    );
  });

  it('filters by device_id and type as GET /ext/events does', async () => {
    const s = await tracked(open(OWNER_KEY, `?device_id=${LOCK_B.toUpperCase()}&type=lock.un`));
    const all = await tracked(open(OWNER_KEY));
    await turn(LOCK_A);
    await simLockOk(t, LOCK_B, { locked: true });
    await simLockOk(t, LOCK_B, { locked: false });
    await all.waitForEvents(3);
    await s.waitForEvents(1);
    // The unfiltered stream saw B's unlock after everything else: the filtered one has it alone.
    assert.deepEqual(
      s.events.map((e) => [e.device_id, e.type]),
      [[LOCK_B, 'lock.unlocked']],
    );
  });

  it("shows a guest the shared lock's lock events, redacted, and nothing once the share ends", async () => {
    const guest = await tracked(open(OTHER_KEY, `?device_id=${LOCK_A}`));
    const owner = await tracked(open(OWNER_KEY, `?device_id=${LOCK_A}`));
    await turn();
    const [seen] = await guest.waitForEvents(1);
    const [full] = await owner.waitForEvents(1);
    assert.ok(seen && full);
    assert.equal(seen.id, full.id);
    assert.deepEqual(seen.actor, { kind: full.actor.kind });
    const guestListed = await listed(t, OTHER_KEY, `&device_id=${LOCK_A}&order=newest-first&limit=50`);
    assert.deepEqual(
      seen,
      guestListed.find((e) => e.id === seen.id),
      'as GET /ext/events lists it to the guest',
    );
    // The share ends (the store's share.removed, as a share from before grants ended), then the lock
    // moves twice.
    const { store, lockcloud } = t.server;
    const ownerId = (await store.accounts.findByEmail(OWNER))?.id;
    const guestId = (await store.accounts.findByEmail(OTHER))?.id;
    assert.ok(ownerId && guestId);
    const shareEvents = (type: 'share.created' | 'share.removed') =>
      lockcloud.eventLog.stampAll([shareEvent(type, ownerId, LOCK_A, guestId, sessionActor(ownerId))]);
    await store.locks.unshare(LOCK_A, guestId, shareEvents('share.removed'));
    await turn();
    await turn();
    await owner.waitForEvents(4, 'share.removed and two movements');
    // Reshared so that the tests after this one find the standard seed.
    await store.locks.share(LOCK_A, guestId, shareEvents('share.created'));
    await turn();
    await owner.waitForEvents(6, 'share.created and a movement');
    await guest.waitForEvents(2, 'the movement after the share came back');
    assert.deepEqual(ids(guest.events), [seen.id, owner.events[5]?.id]);
  });

  it('hides the lock from a guest at once when its grant is revoked, and shows it once one is accepted', async () => {
    const guest = await tracked(open(OTHER_KEY, `?device_id=${LOCK_A}`));
    const owner = await tracked(open(OWNER_KEY, `?device_id=${LOCK_A}`));
    await turn();
    const [before] = await guest.waitForEvents(1, 'a movement while the grant holds');
    const grants = (await (await t.request(`/ext/locks/${LOCK_A}/grants`, { key: OWNER_KEY })).json()) as {
      grants: { id: string; state: string; role: string }[];
    };
    const held = grants.grants.find((g) => g.state === 'accepted');
    assert.ok(held, 'the seed shares lock A with OTHER: an accepted grant');
    const revoked = await t.request(`/ext/locks/${LOCK_A}/grants/${held.id}`, {
      method: 'DELETE',
      key: OWNER_KEY,
    });
    assert.equal(revoked.status, 204);
    await turn();
    await owner.waitForEvents(3, 'the movement, grant.revoked and a movement after it');
    // Invited again and accepted, over the API, with the stream still open.
    const invited = await t.request(`/ext/locks/${LOCK_A}/grants`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { email: OTHER, role: held.role },
    });
    assert.equal(invited.status, 201);
    const { id } = (await invited.json()) as { id: string };
    await turn();
    const accepted = await t.request(`/ext/invitations/${id}/accept`, { method: 'POST', key: OTHER_KEY });
    assert.equal(accepted.status, 200);
    await turn();
    // grant.invited, a movement while pending, grant.accepted, then the movement the guest sees.
    const all = await owner.waitForEvents(7, 'the invitation, its answer and two movements');
    await guest.waitForEvents(2, 'the movement after the grant was accepted');
    assert.deepEqual(
      owner.events.map((e) => (e.type.startsWith('lock.') ? 'a movement' : e.type)),
      [
        'a movement',
        'grant.revoked',
        'a movement',
        'grant.invited',
        'a movement',
        'grant.accepted',
        'a movement',
      ],
    );
    assert.deepEqual(ids(guest.events), [before?.id, all[6]?.id], 'nothing while revoked or only invited');
  });

  it('resumes after Last-Event-ID (header or query): events written meanwhile, no gap, no duplicate', async () => {
    const s = await tracked(open(OWNER_KEY));
    await turn();
    await turn();
    const [a, b] = await s.waitForEvents(2);
    assert.ok(a && b);
    s.close();
    // Written while no stream is open.
    await turn();
    await turn();
    const expected = await listed(t, OWNER_KEY, `&after=${a.id}`);
    const byHeader = await tracked(open(OWNER_KEY, '', { 'last-event-id': a.id }));
    const byQuery = await tracked(open(OWNER_KEY, `?last_event_id=${a.id}`));
    // The header wins over the parameter.
    const both = await tracked(open(OWNER_KEY, `?last_event_id=${b.id}`, { 'last-event-id': a.id }));
    await turn();
    const withLive = [...expected, ...(await listed(t, OWNER_KEY, `&after=${expected.at(-1)?.id}`))];
    for (const [what, stream] of [
      ['header', byHeader],
      ['query', byQuery],
      ['both', both],
    ] as const) {
      await stream.waitForEvents(withLive.length, what);
      assert.deepEqual(ids(stream.events), ids(withLive), what);
    }
  });

  it('refuses a bad key, bad filters and resume ids, and a stream over the per-account limit', async () => {
    const req = (query: string, key?: string, headers: Record<string, string> = {}) =>
      t.request(`/ext/events/stream${query}`, { ...(key === undefined ? {} : { key }), headers });
    const unauthorized = await req('');
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(await unauthorized.json(), { error: 'UNAUTHORIZED' });
    await expectExtError(await req('?type=Lock', OWNER_KEY), 400, 'BAD_PARAMS', /^type: /, 'type');
    await expectExtError(
      await req('?device_id=a%20b', OWNER_KEY),
      400,
      'BAD_PARAMS',
      /^device_id: /,
      'device',
    );
    await expectExtError(
      await req('?limit=5', OWNER_KEY),
      400,
      'BAD_PARAMS',
      /additional properties/,
      'an unknown parameter',
    );
    await expectExtError(
      await req('?last_event_id=evt_nope', OWNER_KEY),
      400,
      'BAD_PARAMS',
      /^last_event_id: must be an event id/,
      'a malformed id',
    );
    await expectExtError(
      await req('', OWNER_KEY, { 'last-event-id': 'x' }),
      400,
      'BAD_PARAMS',
      /^last_event_id: must be an event id/,
      'a malformed header',
    );
    const [newest] = await listed(t, OWNER_KEY, '&order=newest-first&limit=1');
    assert.ok(newest);
    // Well-formed, later than the oldest event, never written.
    const unknown = `${newest.id.slice(0, -10)}ffffffffff`;
    await expectExtError(
      await req(`?last_event_id=${unknown}`, OWNER_KEY),
      400,
      'BAD_PARAMS',
      /^last_event_id: unknown event$/,
      'an id the log never held',
    );
    // An event of the owner's account (a key event in the seed? a share event): not the guest's to see.
    const [share] = await listed(t, OWNER_KEY, '&type=share.&order=newest-first&limit=1');
    assert.ok(share);
    await expectExtError(
      await req(`?last_event_id=${share.id}`, OTHER_KEY),
      400,
      'BAD_PARAMS',
      /^last_event_id: unknown event$/,
      'an event the reader cannot see',
    );
    // Older than anything the log holds (purged): from the oldest event.
    const fromStart = await tracked(open(OWNER_KEY, '?last_event_id=evt_0000000000010000000000000000'));
    const everything = await listed(t, OWNER_KEY, '');
    await fromStart.waitForEvents(everything.length);
    assert.deepEqual(ids(fromStart.events), ids(everything));
    // Three at once (--event-streams-per-account 3), the fourth refused until one ends.
    fromStart.close();
    await eventually('the streams to be forgotten', () => t.server.lockcloud.eventStreams.count === 0);
    const held = [
      await tracked(open(OWNER_KEY)),
      await tracked(open(OWNER_KEY)),
      await tracked(open(OWNER_KEY)),
    ];
    await expectExtError(await req('', OWNER_KEY), 429, 'THROTTLED', /at most 3 event streams/, 'a fourth');
    const guest = await tracked(open(OTHER_KEY));
    assert.equal(guest.status, 200, 'another account is not held back');
    held[0]?.close();
    await eventually('a stream to end', async () => (await tracked(open(OWNER_KEY))).status === 200);
  });
});
