/**
 * The shared relation over time: a view grant the owner gives on the dashboard, once the guest
 * accepts it (a pending invitation gives nothing), gives the guest exactly what a shared account gets
 * (the lock in its v1 list and on its dashboard; 403 30000 on v1 reads and controls; nothing at all
 * on v3 and the partner endpoint; 403 on dashboard commands, view only), and once the owner revokes
 * it the guest is a stranger again at once, on every surface, with its credentials unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { carriedOut } from '../dashboard/support.ts';
import { answer } from '../support/server.ts';
import { send, V1_LOCK_NOT_FOUND, V1_NOT_OWNER, V3_BAD_PARAMS, type Want } from './presentations.ts';
import { LOCKS, lockedForOwner, PEOPLE, startWorld, type World } from './world.ts';

const CELLAR = LOCKS[1]?.deviceId ?? '';
const KEY = { secret: 'key', place: 'authorization' } as const;
const TOKEN = { secret: 'token', place: 'x-authorization' } as const;
const SESSION = { secret: 'session', place: 'cookie' } as const;

describe("a grant given, accepted and revoked: the guest's view follows at once", () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());
  /** The cellar's one grant: the stranger's. */
  const grantId = () =>
    (w.db.prepare('SELECT id FROM grants WHERE device_id = ?').get(CELLAR.toLowerCase()) as { id: string })
      .id;

  async function strangerSees(): Promise<{
    v1: string[];
    v3: string[];
    dashboard: string[];
    dashboardFields: string[];
  }> {
    const v1 = await answer(await send(w, 'stranger', TOKEN, 'none', { method: 'GET', path: '/v1/locks' }));
    const v3 = await answer(await send(w, 'stranger', KEY, 'none', { method: 'GET', path: '/public/locks' }));
    const dash = await answer(
      await send(w, 'stranger', SESSION, 'none', { method: 'GET', path: '/dashboard/api/locks' }),
    );
    return {
      v1: (v1.body as { locks: { device_id: string }[] }).locks.map((l) => l.device_id),
      v3: (v3.body as { device_id: string }[]).map((l) => l.device_id),
      dashboard: (dash.body as { shared: { device_id: string }[] }).shared.map((l) => l.device_id),
      // What a guest's card shows, no more: not the owner's settings nor whether the owner's app is open.
      dashboardFields: [
        ...new Set((dash.body as { shared: object[] }).shared.flatMap((l) => Object.keys(l))),
      ].sort(),
    };
  }

  async function expectRefusals(v1: Want, what: string, dashboardStatus = 404): Promise<void> {
    const tries = [
      [TOKEN, { method: 'GET', path: `/v1/locks/${CELLAR}` }, v1],
      [TOKEN, { method: 'POST', path: `/v1/locks/${CELLAR}/control`, json: { type: 'unlock' } }, v1],
      [KEY, { method: 'GET', path: `/public/lock/${CELLAR}` }, V3_BAD_PARAMS],
      [KEY, { method: 'POST', path: `/public/lock/${CELLAR}`, json: { command: 'unlock' } }, V3_BAD_PARAMS],
      [
        {},
        {
          method: 'POST',
          path: '/public/partners/automation',
          json: { command: 'unlock', device_id: CELLAR, apikey: PEOPLE.stranger.key },
        },
        V3_BAD_PARAMS,
      ],
    ] as const;
    for (const [p, out, want] of tries) {
      const got = await answer(await send(w, 'stranger', p, 'none', out));
      assert.deepEqual(got, { status: want.status, body: want.body }, `${what}: ${out.method} ${out.path}`);
    }
    const dash = await send(w, 'stranger', SESSION, 'own', {
      method: 'POST',
      path: `/dashboard/api/locks/${CELLAR}/commands`,
      json: { command: 'unlock' },
    });
    assert.equal(dash.status, dashboardStatus, `${what}: dashboard command`);
    assert.equal(await lockedForOwner(w, CELLAR), true, `${what}: the cellar did not move`);
  }

  it('before the share the stranger sees nothing of the cellar', async () => {
    assert.deepEqual(await strangerSees(), {
      v1: [LOCKS[3]?.deviceId],
      v3: [LOCKS[3]?.deviceId],
      dashboard: [],
      dashboardFields: [],
    });
    await expectRefusals(V1_LOCK_NOT_FOUND, 'not shared');
  });

  it('invited, the stranger sees nothing yet; accepted, the cellar is in its v1 list and on its dashboard, and refused as not its own', async () => {
    const invited = await w.of.owner.session.post(`/dashboard/locks/${CELLAR}/grants`, {
      email: PEOPLE.stranger.email,
      role: 'view',
    });
    assert.ok(carriedOut(invited), `invite: ${invited.status}`);
    assert.deepEqual((await strangerSees()).dashboard, [], 'pending');
    await expectRefusals(V1_LOCK_NOT_FOUND, 'pending');
    const accepted = await w.of.stranger.session.post(`/dashboard/invitations/${grantId()}/accept`, {});
    assert.ok(carriedOut(accepted), `accept: ${accepted.status}`);
    const sees = await strangerSees();
    assert.deepEqual(sees.v1.sort(), [CELLAR, LOCKS[3]?.deviceId].sort());
    assert.deepEqual(sees.v3, [LOCKS[3]?.deviceId], 'v3 lists only owned locks');
    assert.deepEqual(sees.dashboard, [CELLAR]);
    assert.deepEqual(sees.dashboardFields, [
      'battery',
      'battery_per_day',
      'battery_state',
      'device_id',
      'door',
      'firmware',
      'jammed',
      'last_seen_at',
      'locked',
      'nickname',
      'responsive',
    ]);
    await expectRefusals(V1_NOT_OWNER, 'shared', 403);
  });

  it('revoked, the stranger is a stranger again at once', async () => {
    const removed = await w.of.owner.session.post(
      `/dashboard/locks/${CELLAR}/grants/${grantId()}/revoke`,
      {},
    );
    assert.ok(carriedOut(removed), `revoke: ${removed.status}`);
    assert.deepEqual(await strangerSees(), {
      v1: [LOCKS[3]?.deviceId],
      v3: [LOCKS[3]?.deviceId],
      dashboard: [],
      dashboardFields: [],
    });
    await expectRefusals(V1_LOCK_NOT_FOUND, 'revoked');
  });
});
