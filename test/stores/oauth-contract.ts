/**
 * The Store contract for OAuth (issue 24): registered apps, owners' consents, and oidc-provider's
 * records kept by the hash of their ids, with the one lookup a bearer token makes per request.
 * Each backend's test file calls it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { NewOAuthApp, OAuthRecord, Store } from '../../src/app/ports.ts';
import type { OAuthConsent } from '../../src/domain/oauth-app.ts';
import { anAccount } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

const app = (id: string, patch: Partial<NewOAuthApp> = {}): NewOAuthApp => ({
  id,
  accountId: 'dev-1',
  name: `App ${id}`,
  redirectUris: ['https://app.example/cb'],
  kind: 'confidential',
  secretHash: `secret-hash-${id}`,
  secretPrefix: 'lcs_abc',
  createdAt: 10,
  updatedAt: 10,
  ...patch,
});

const consent = (appId: string, patch: Partial<OAuthConsent> = {}): OAuthConsent => ({
  accountId: 'owner-1',
  appId,
  scopes: ['locks:read', 'locks:operate'],
  lockIds: ['dev_a', 'dev_b'],
  grantId: `grant-${appId}`,
  grantedAt: 100,
  lastUsedAt: null,
  ...patch,
});

const record = (patch: Partial<OAuthRecord> = {}): OAuthRecord => ({
  payload: '{"kind":"AccessToken"}',
  grantId: 'grant-lca_1',
  uid: null,
  accountId: 'owner-1',
  clientId: 'lca_1',
  scope: 'locks:operate locks:read',
  expiresAt: 5_000,
  consumedAt: null,
  ...patch,
});

export function oauthStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract, OAuth: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('dev-1'));
      await store.accounts.insert(anAccount('owner-1'));
    });
    afterEach(() => factory.cleanup(store));

    it('keeps apps with their secret hash apart, and edits, re-keys and deletes only the registrant’s', async () => {
      await store.oauthApps.insert(app('lca_1'));
      await store.oauthApps.insert(
        app('lca_2', { kind: 'public', secretHash: null, secretPrefix: null, createdAt: 11 }),
      );
      const { secretHash: _, ...shown } = app('lca_1');
      assert.deepEqual(await store.oauthApps.find('lca_1'), shown);
      assert.equal(await store.oauthApps.secretHash('lca_1'), 'secret-hash-lca_1');
      assert.equal(await store.oauthApps.secretHash('lca_2'), undefined);
      assert.equal(await store.oauthApps.find('lca_none'), undefined);
      assert.deepEqual(
        (await store.oauthApps.listForAccount('dev-1')).map((a) => a.id),
        ['lca_1', 'lca_2'],
      );

      const patch = {
        name: 'Renamed',
        redirectUris: ['https://b.example/cb', 'http://127.0.0.1/cb'],
        updatedAt: 20,
      };
      assert.equal(await store.oauthApps.update('owner-1', 'lca_1', patch), false, 'another account');
      assert.equal(await store.oauthApps.update('dev-1', 'lca_1', patch), true);
      assert.deepEqual(await store.oauthApps.find('lca_1'), { ...shown, ...patch });

      assert.equal(
        await store.oauthApps.replaceSecret('dev-1', 'lca_2', 'h', 'lcs_p', 30),
        false,
        'a public app',
      );
      assert.equal(await store.oauthApps.replaceSecret('owner-1', 'lca_1', 'h', 'lcs_p', 30), false);
      assert.equal(await store.oauthApps.replaceSecret('dev-1', 'lca_1', 'new-hash', 'lcs_new', 30), true);
      assert.equal(await store.oauthApps.secretHash('lca_1'), 'new-hash');
      assert.equal((await store.oauthApps.find('lca_1'))?.secretPrefix, 'lcs_new');

      await store.oauthApps.putConsent(consent('lca_1'));
      assert.equal(await store.oauthApps.delete('owner-1', 'lca_1'), false);
      assert.equal(await store.oauthApps.delete('dev-1', 'lca_1'), true);
      assert.equal(await store.oauthApps.find('lca_1'), undefined);
      assert.equal(
        await store.oauthApps.findConsent('owner-1', 'lca_1'),
        undefined,
        'its consents go with it',
      );
      assert.equal(await store.oauthApps.delete('dev-1', 'lca_1'), false);
    });

    it('remembers one consent per account and app, replaced by the next and withdrawn at once', async () => {
      await store.oauthApps.insert(app('lca_1'));
      await store.oauthApps.insert(app('lca_2', { createdAt: 11 }));
      await store.oauthApps.putConsent(consent('lca_1'));
      await store.oauthApps.putConsent(
        consent('lca_2', { lockIds: null, scopes: ['events:read'], grantedAt: 200 }),
      );
      assert.deepEqual(await store.oauthApps.findConsent('owner-1', 'lca_1'), consent('lca_1'));
      const replaced = consent('lca_1', { scopes: ['locks:read'], grantId: 'grant-2', grantedAt: 300 });
      await store.oauthApps.putConsent(replaced);
      assert.deepEqual(await store.oauthApps.findConsent('owner-1', 'lca_1'), replaced);

      await store.oauthApps.touchConsent('grant-2', 400);
      const listed = await store.oauthApps.listConsents('owner-1');
      assert.deepEqual(
        listed.map(({ consent: c, app: a }) => [a.id, a.name, c.grantId, c.lastUsedAt]),
        [
          ['lca_1', 'App lca_1', 'grant-2', 400],
          ['lca_2', 'App lca_2', 'grant-lca_2', null],
        ],
      );
      assert.deepEqual(await store.oauthApps.listConsents('dev-1'), []);

      assert.deepEqual(
        await store.oauthApps.deleteConsent('owner-1', 'lca_2'),
        consent('lca_2', {
          lockIds: null,
          scopes: ['events:read'],
          grantedAt: 200,
        }),
      );
      assert.equal(await store.oauthApps.deleteConsent('owner-1', 'lca_2'), undefined);
    });

    it('keeps the provider’s records by model and hash, consumes, destroys and revokes them', async () => {
      await store.oauthRecords.upsert('AccessToken', 'h1', record());
      await store.oauthRecords.upsert('RefreshToken', 'h1', record({ payload: '{"kind":"RefreshToken"}' }));
      await store.oauthRecords.upsert(
        'Session',
        'h2',
        record({ uid: 'uid-1', grantId: null, clientId: null }),
      );
      assert.deepEqual(await store.oauthRecords.find('AccessToken', 'h1'), record());
      assert.equal((await store.oauthRecords.find('RefreshToken', 'h1'))?.payload, '{"kind":"RefreshToken"}');
      assert.equal(await store.oauthRecords.find('AuthorizationCode', 'h1'), undefined);
      assert.deepEqual(await store.oauthRecords.findByUid('Session', 'uid-1'), {
        idHash: 'h2',
        record: record({ uid: 'uid-1', grantId: null, clientId: null }),
      });
      assert.equal(await store.oauthRecords.findByUid('Interaction', 'uid-1'), undefined);

      await store.oauthRecords.upsert('AccessToken', 'h1', record({ expiresAt: 6_000 }));
      assert.equal(
        (await store.oauthRecords.find('AccessToken', 'h1'))?.expiresAt,
        6_000,
        'an upsert replaces',
      );
      await store.oauthRecords.consume('RefreshToken', 'h1', 700);
      assert.equal((await store.oauthRecords.find('RefreshToken', 'h1'))?.consumedAt, 700);
      assert.equal((await store.oauthRecords.find('AccessToken', 'h1'))?.consumedAt, null);

      await store.oauthRecords.destroy('AccessToken', 'h1');
      assert.equal(await store.oauthRecords.find('AccessToken', 'h1'), undefined);
      await store.oauthRecords.upsert('AccessToken', 'h3', record({ grantId: 'grant-x' }));
      await store.oauthRecords.upsert('AccessToken', 'h4', record());
      await store.oauthRecords.revokeGrant('grant-lca_1', 'AccessToken');
      assert.equal(await store.oauthRecords.find('AccessToken', 'h4'), undefined);
      assert.ok(await store.oauthRecords.find('RefreshToken', 'h1'), 'only the model named');
      await store.oauthRecords.revokeGrant('grant-lca_1');
      assert.equal(await store.oauthRecords.find('RefreshToken', 'h1'), undefined);
      assert.ok(await store.oauthRecords.find('AccessToken', 'h3'), 'another grant stays');
      await store.oauthRecords.revokeClient('lca_1');
      assert.equal(await store.oauthRecords.find('AccessToken', 'h3'), undefined);
      assert.ok(await store.oauthRecords.find('Session', 'h2'), 'a session belongs to no client');

      assert.equal(await store.oauthRecords.purgeExpired(5_001), 1);
      assert.equal(await store.oauthRecords.find('Session', 'h2'), undefined);
    });

    it('finds a bearer token with its consent’s locks and its app, and nothing once either is gone', async () => {
      await store.oauthApps.insert(app('lca_1'));
      await store.oauthApps.putConsent(consent('lca_1', { lastUsedAt: 150 }));
      await store.oauthRecords.upsert('AccessToken', 'tok', record());
      await store.oauthRecords.upsert('RefreshToken', 'ref', record());
      const found = await store.oauthRecords.findBearer('tok');
      assert.equal(found?.account.id, 'owner-1');
      assert.deepEqual(
        { ...found, account: undefined },
        {
          account: undefined,
          app: { id: 'lca_1', name: 'App lca_1' },
          grantId: 'grant-lca_1',
          scopes: ['locks:read', 'locks:operate'],
          lockIds: ['dev_a', 'dev_b'],
          expiresAt: 5_000,
          lastUsedAt: 150,
        },
      );
      assert.equal(
        await store.oauthRecords.findBearer('ref'),
        undefined,
        'a refresh token is no access token',
      );
      assert.equal(await store.oauthRecords.findBearer('unknown'), undefined);

      // The owner narrows the locks: the live token follows.
      await store.oauthApps.putConsent(consent('lca_1', { lockIds: ['dev_b'] }));
      assert.deepEqual((await store.oauthRecords.findBearer('tok'))?.lockIds, ['dev_b']);
      // A consent granted anew (another grant) does not revive the old grant's tokens.
      await store.oauthApps.putConsent(consent('lca_1', { grantId: 'grant-new' }));
      assert.equal(await store.oauthRecords.findBearer('tok'), undefined);
      await store.oauthApps.putConsent(consent('lca_1'));
      assert.ok(await store.oauthRecords.findBearer('tok'));
      await store.oauthApps.deleteConsent('owner-1', 'lca_1');
      assert.equal(await store.oauthRecords.findBearer('tok'), undefined, 'withdrawn');
    });
  });
}
