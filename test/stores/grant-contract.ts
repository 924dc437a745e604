/**
 * The Store contract for grants (issue 23): invitations, the guest's answer and the owner's revoke
 * as compare-and-sets, edits of terms while a grant is live, one-time use racing, shares kept over
 * grants, and a lock's time zone. Each backend's test file calls it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import { formatEventId, type LockEvent } from '../../src/domain/event.ts';
import type { Grant, NewGrant } from '../../src/domain/grant.ts';
import { aLock, anAccount } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

const LOCK = '00000000-0000-4000-8000-0000000000a1';
const OTHER = '00000000-0000-4000-8000-0000000000a2';

let counter = 0;
/** A share event of the owner's, ids rising in the order made. */
function event(deviceId = LOCK): LockEvent {
  counter++;
  return {
    id: formatEventId(10_000, counter, counter.toString(16).padStart(10, '0')),
    occurredAt: 10_000,
    type: 'share.created',
    accountId: 'owner',
    deviceId,
    actor: { kind: 'account', accountId: 'owner' },
    method: null,
    taskId: null,
    data: { guest_id: 'guest' },
  };
}

const invitation = (patch: Partial<NewGrant> = {}): NewGrant => ({
  id: 'grant-1',
  deviceId: LOCK,
  ownerId: 'owner',
  guestId: 'guest',
  role: 'operate',
  startsAt: 20_000,
  endsAt: 90_000,
  schedule: [{ days: ['mon', 'fri'], start: '08:00', end: '18:30' }],
  oneTime: true,
  createdAt: 15_000,
  ...patch,
});

const pending = (patch: Partial<NewGrant> = {}): Grant => ({
  ...invitation(patch),
  state: 'pending',
  respondedAt: null,
  usedAt: null,
});

export function grantStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract, grants: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      for (const id of ['owner', 'guest', 'other'])
        await store.accounts.insert(anAccount(id, { email: `${id}@example.com` }));
      await store.locks.insert(aLock(LOCK, 'owner', { nickname: 'Front door', createdAt: 1 }));
      await store.locks.insert(
        aLock(OTHER, 'owner', { nickname: 'Back door', createdAt: 2, timeZone: 'Europe/Berlin' }),
      );
    });
    afterEach(() => factory.cleanup(store));

    /** The owner's events, in the order written. */
    const logged = async (): Promise<string[]> =>
      (await store.events.list({ readerId: 'owner', limit: 100, order: 'oldest-first' })).map((e) => e.id);

    it('stores an invitation as a pending grant, read back by id and by lock and guest', async () => {
      const e = event();
      await store.grants.invite(invitation(), [e]);
      assert.deepEqual(await store.grants.get('grant-1'), pending());
      assert.deepEqual(await store.grants.getFor(LOCK, 'guest'), pending());
      assert.equal(await store.grants.get('nope'), undefined);
      assert.equal(await store.grants.getFor(OTHER, 'guest'), undefined);
      assert.deepEqual(await logged(), [e.id]);
    });

    it('a new invitation to the same guest replaces the grant: new id, terms and state', async () => {
      await store.grants.invite(invitation());
      assert.equal(await store.grants.updateStateIf('grant-1', 'pending', 'accepted', 16_000), true);
      const again = invitation({
        id: 'grant-2',
        role: 'view',
        startsAt: null,
        endsAt: null,
        schedule: null,
        oneTime: false,
        createdAt: 17_000,
      });
      await store.grants.invite(again);
      assert.deepEqual(await store.grants.getFor(LOCK, 'guest'), pending(again));
      assert.equal(await store.grants.get('grant-1'), undefined, 'an answer to the old id finds nothing');
      assert.equal((await store.grants.listForLock(LOCK)).length, 1);
    });

    it("lists a lock's grants in every state for the owner, and a guest's with the lock and owner", async () => {
      await store.grants.invite(invitation());
      await store.grants.invite(invitation({ id: 'grant-o', guestId: 'other', createdAt: 14_000 }));
      await store.grants.invite(invitation({ id: 'grant-b', deviceId: OTHER, createdAt: 16_000 }));
      await store.grants.revoke('grant-o', 18_000);
      assert.deepEqual(await store.grants.listForLock(LOCK), [
        { ...pending(), guestEmail: 'guest@example.com' },
        {
          ...pending({ id: 'grant-o', guestId: 'other', createdAt: 14_000 }),
          state: 'revoked',
          respondedAt: 18_000,
          guestEmail: 'other@example.com',
        },
      ]);
      await store.grants.updateStateIf('grant-b', 'pending', 'accepted', 19_000);
      const asGuest = { lockNickname: 'Front door', ownerEmail: 'owner@example.com', lockTimeZone: 'UTC' };
      const back = {
        ...pending({ id: 'grant-b', deviceId: OTHER, createdAt: 16_000 }),
        state: 'accepted' as const,
        respondedAt: 19_000,
        lockNickname: 'Back door',
        ownerEmail: 'owner@example.com',
        lockTimeZone: 'Europe/Berlin',
      };
      assert.deepEqual(await store.grants.listForGuest('guest'), [{ ...pending(), ...asGuest }, back]);
      assert.deepEqual(await store.grants.listForGuest('guest', ['pending']), [{ ...pending(), ...asGuest }]);
      assert.deepEqual(await store.grants.listForGuest('guest', ['accepted', 'declined']), [back]);
      assert.deepEqual(await store.grants.listForGuest('guest', []), []);
      assert.deepEqual(await store.grants.listForGuest('owner'), []);
    });

    it('accepts and declines only from the state read: a wrong one changes nothing and logs nothing', async () => {
      await store.grants.invite(invitation());
      assert.equal(
        await store.grants.updateStateIf('grant-1', 'accepted', 'declined', 16_000, [event()]),
        false,
      );
      assert.equal(await store.grants.updateStateIf('nope', 'pending', 'accepted', 16_000, [event()]), false);
      assert.deepEqual(await store.grants.get('grant-1'), pending());
      assert.deepEqual(await logged(), []);

      const accepted = event();
      assert.equal(
        await store.grants.updateStateIf('grant-1', 'pending', 'accepted', 16_000, [accepted]),
        true,
      );
      // Two tabs answering the same invitation: the second finds it answered.
      assert.equal(
        await store.grants.updateStateIf('grant-1', 'pending', 'declined', 16_500, [event()]),
        false,
      );
      assert.deepEqual(await store.grants.get('grant-1'), {
        ...pending(),
        state: 'accepted',
        respondedAt: 16_000,
      });
      // Given back: an accepted grant declined.
      assert.equal(await store.grants.updateStateIf('grant-1', 'accepted', 'declined', 17_000), true);
      assert.equal((await store.grants.get('grant-1'))?.state, 'declined');
      assert.equal((await store.grants.get('grant-1'))?.respondedAt, 17_000);
      assert.deepEqual(await logged(), [accepted.id]);
    });

    it('revokes a pending or an accepted grant, once; nothing else', async () => {
      await store.grants.invite(invitation());
      await store.grants.invite(invitation({ id: 'grant-b', deviceId: OTHER }));
      await store.grants.updateStateIf('grant-b', 'pending', 'accepted', 16_000);
      const [first, second] = [event(), event(OTHER)];
      assert.equal(await store.grants.revoke('grant-1', 18_000, [first]), true);
      assert.equal(await store.grants.revoke('grant-b', 18_000, [second]), true);
      assert.equal(await store.grants.revoke('grant-1', 19_000, [event()]), false);
      assert.deepEqual(await store.grants.get('grant-1'), {
        ...pending(),
        state: 'revoked',
        respondedAt: 18_000,
      });
      assert.equal((await store.grants.get('grant-b'))?.state, 'revoked');
      // A declined grant has nothing left to revoke.
      await store.grants.invite(invitation({ id: 'grant-o', guestId: 'other' }));
      await store.grants.updateStateIf('grant-o', 'pending', 'declined', 16_000);
      assert.equal(await store.grants.revoke('grant-o', 18_000, [event()]), false);
      assert.equal((await store.grants.get('grant-o'))?.state, 'declined');
      assert.deepEqual(await logged(), [first.id, second.id]);
    });

    it('edits the terms given while the grant is pending or accepted, and only then', async () => {
      await store.grants.invite(invitation());
      const edited = event();
      assert.equal(
        await store.grants.updateTermsIf('grant-1', { endsAt: null, schedule: null, startsAt: 30_000 }, [
          edited,
        ]),
        true,
      );
      assert.deepEqual(await store.grants.get('grant-1'), {
        ...pending(),
        startsAt: 30_000,
        endsAt: null,
        schedule: null,
      });
      await store.grants.updateStateIf('grant-1', 'pending', 'accepted', 16_000);
      const schedule = [{ days: ['sat' as const], start: '22:00', end: '06:00' }];
      assert.equal(await store.grants.updateTermsIf('grant-1', { oneTime: false, schedule }), true);
      assert.equal(await store.grants.updateTermsIf('grant-1', { role: 'view' }), true);
      const accepted = await store.grants.get('grant-1');
      assert.deepEqual(accepted, {
        ...pending(),
        role: 'view',
        startsAt: 30_000,
        endsAt: null,
        schedule,
        oneTime: false,
        state: 'accepted',
        respondedAt: 16_000,
      });
      assert.equal(await store.grants.updateTermsIf('grant-1', {}), true, 'an empty edit of a live grant');

      await store.grants.revoke('grant-1', 20_000);
      assert.equal(await store.grants.updateTermsIf('grant-1', { role: 'operate' }, [event()]), false);
      assert.equal(await store.grants.updateTermsIf('grant-1', {}), false);
      assert.equal(await store.grants.updateTermsIf('nope', { role: 'operate' }), false);
      assert.equal((await store.grants.get('grant-1'))?.role, 'view');
      assert.deepEqual(await logged(), [edited.id]);
    });

    it('refuses terms the domain would not make, as two racing edits could combine them', async () => {
      // One edit made the grant one-time, another (checked against the terms before it) made it view.
      await store.grants.invite(invitation());
      await assert.rejects(store.grants.updateTermsIf('grant-1', { role: 'view' }));
      await assert.rejects(store.grants.updateTermsIf('grant-1', { endsAt: 20_000 }));
      assert.deepEqual(await store.grants.get('grant-1'), pending());
    });

    it('uses up a one-time grant once: of two unlocks racing, exactly one wins', async () => {
      await store.grants.invite(invitation());
      assert.equal(await store.grants.markUsedIf('grant-1', 21_000, [event()]), false, 'pending: not yet');
      await store.grants.updateStateIf('grant-1', 'pending', 'accepted', 16_000);
      const [a, b] = [event(), event()];
      const results = await Promise.all([
        store.grants.markUsedIf('grant-1', 21_000, [a]),
        store.grants.markUsedIf('grant-1', 21_001, [b]),
      ]);
      assert.deepEqual(
        results.filter((won) => won),
        [true],
      );
      const used = await store.grants.get('grant-1');
      assert.equal(used?.state, 'used');
      assert.equal(used?.usedAt, results[0] ? 21_000 : 21_001);
      assert.equal(used?.respondedAt, 16_000);
      assert.deepEqual(await logged(), [results[0] ? a.id : b.id]);
      // A grant that is not one-time is never used up.
      await store.grants.invite(invitation({ id: 'grant-b', deviceId: OTHER, oneTime: false }));
      await store.grants.updateStateIf('grant-b', 'pending', 'accepted', 16_000);
      assert.equal(await store.grants.markUsedIf('grant-b', 21_000), false);
      assert.equal((await store.grants.get('grant-b'))?.state, 'accepted');
    });

    it('keeps shares working over grants: an accepted view grant, seen only once accepted', async () => {
      const shared = event();
      await store.locks.share(LOCK, 'guest', [shared], { id: 'share-1', at: 12_000 });
      await store.locks.share(LOCK, 'guest', [event()], { id: 'share-2', at: 13_000 });
      const grant = await store.grants.getFor(LOCK, 'guest');
      assert.ok(grant);
      assert.deepEqual(grant, {
        id: 'share-1',
        deviceId: LOCK,
        ownerId: 'owner',
        guestId: 'guest',
        role: 'view',
        state: 'accepted',
        startsAt: null,
        endsAt: null,
        schedule: null,
        oneTime: false,
        createdAt: 12_000,
        respondedAt: null,
        usedAt: null,
      });
      assert.deepEqual(await logged(), [shared.id], 'sharing twice writes once');

      // An invitation shows the guest nothing until it is accepted: not the lock, not its events.
      await store.grants.invite(invitation({ id: 'grant-b', deviceId: OTHER }));
      const seen = async () => (await store.locks.listVisibleTo('guest')).map((l) => l.deviceId);
      const guestEvents = async () =>
        (await store.events.list({ readerId: 'guest', limit: 100, order: 'oldest-first' })).map((e) => e.id);
      const unlocked = { ...event(OTHER), type: 'lock.unlocked' as const, method: 'api_v3' as const };
      await store.events.append([unlocked]);
      assert.deepEqual(await seen(), [LOCK]);
      assert.equal(await store.locks.isSharedWith(OTHER, 'guest'), false);
      assert.deepEqual(await store.locks.sharesOf(OTHER), []);
      assert.deepEqual(await guestEvents(), []);
      assert.deepEqual(
        await store.events.list({ readerId: 'guest', deviceId: OTHER, limit: 10, order: 'newest-first' }),
        [],
      );
      await store.grants.updateStateIf('grant-b', 'pending', 'accepted', 16_000);
      assert.deepEqual(await seen(), [LOCK, OTHER]);
      assert.equal(await store.locks.isSharedWith(OTHER, 'guest'), true);
      assert.deepEqual(await store.locks.sharesOf(OTHER), [
        { accountId: 'guest', email: 'guest@example.com' },
      ]);
      assert.deepEqual(await guestEvents(), [unlocked.id]);

      // A share of an accepted grant leaves it as it is; of a revoked one, makes it a share anew.
      await store.locks.share(OTHER, 'guest', [event(OTHER)], { id: 'share-3', at: 17_000 });
      assert.equal((await store.grants.getFor(OTHER, 'guest'))?.role, 'operate');
      await store.grants.revoke('grant-b', 18_000);
      assert.deepEqual(await seen(), [LOCK]);
      assert.deepEqual(await guestEvents(), []);
      const again = event(OTHER);
      await store.locks.share(OTHER, 'guest', [again], { id: 'share-4', at: 19_000 });
      const reshared = await store.grants.getFor(OTHER, 'guest');
      assert.deepEqual(reshared, {
        ...grant,
        id: 'share-4',
        deviceId: OTHER,
        createdAt: 19_000,
      });
      assert.deepEqual(await logged(), [shared.id, unlocked.id, again.id]);
      // Unsharing deletes the guest's grant, whatever its state.
      await store.grants.invite(invitation({ id: 'grant-o', guestId: 'other' }));
      assert.equal(await store.locks.unshare(LOCK, 'other'), true);
      assert.equal(await store.grants.get('grant-o'), undefined);
      assert.equal(await store.locks.unshare(LOCK, 'other'), false);
    });

    it("a deleted account's grants go: those it gave, and those given to it", async () => {
      await store.accounts.insert(anAccount('owner-2'));
      await store.locks.insert(aLock('dev-2', 'owner-2'));
      await store.grants.invite(invitation());
      await store.grants.invite(invitation({ id: 'grant-2', deviceId: 'dev-2', ownerId: 'owner-2' }));
      await store.grants.invite(
        invitation({ id: 'grant-3', deviceId: 'dev-2', ownerId: 'owner-2', guestId: 'other' }),
      );
      await store.grants.invite(
        invitation({ id: 'grant-4', deviceId: OTHER, guestId: 'owner-2', oneTime: false }),
      );
      assert.deepEqual(await store.locks.releaseAccount('owner-2'), ['dev-2']);
      for (const id of ['grant-2', 'grant-3', 'grant-4']) assert.equal(await store.grants.get(id), undefined);
      assert.deepEqual(await store.grants.get('grant-1'), pending());
      assert.deepEqual(await store.locks.releaseAccount('guest'), []);
      assert.equal(await store.grants.get('grant-1'), undefined);
    });

    it("a lock's time zone is UTC until the owner's settings write sets one", async () => {
      assert.equal((await store.locks.get(LOCK))?.timeZone, 'UTC');
      const read = await store.locks.readStatus(LOCK);
      assert.ok(read);
      assert.equal(
        await store.locks.updateSettingsIf(LOCK, read.version, { timeZone: 'Europe/Berlin' }, []),
        true,
      );
      assert.equal((await store.locks.get(LOCK))?.timeZone, 'Europe/Berlin');
      assert.equal(
        await store.locks.updateSettingsIf(LOCK, read.version, { timeZone: 'Asia/Tokyo' }, []),
        false,
      );
      assert.equal((await store.locks.get(LOCK))?.timeZone, 'Europe/Berlin');
      await store.locks.insert(aLock('dev-z', 'owner', { timeZone: 'America/New_York' }));
      assert.equal((await store.locks.get('dev-z'))?.timeZone, 'America/New_York');
      // A status write leaves the owner's setting as it is.
      const again = await store.locks.readStatus(LOCK);
      assert.ok(again);
      await store.locks.writeStatusIf(LOCK, again.version, { ...again.lock, locked: false }, null);
      assert.equal((await store.locks.get(LOCK))?.timeZone, 'Europe/Berlin');
    });
  });
}
