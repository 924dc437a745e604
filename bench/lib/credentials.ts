/**
 * The credentials the read-path bench presents, each made as a client makes it, against a running
 * server: a v1 login token, a scoped API key (issue 23) and an OAuth access token (issue 24).
 */
import { join } from 'node:path';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { FormClient } from '../../test/dashboard/support.ts';
import { authorize, discover, exchange, oauth, REDIRECT } from '../../test/support/oauth.ts';
import { LOCK_A, OWNER, OWNER_KEY, type TestServer } from '../../test/support/server.ts';
import { HttpClient } from './load.ts';
import type { Lockcloud } from './processes.ts';

/** A v1 login token of the seed's owner. */
export async function v1Token(server: Lockcloud): Promise<string> {
  const client = new HttpClient(server.url, 1);
  const { authorization } = await client.json<{ authorization: string }>(
    'POST',
    '/v1/accounts/login',
    {},
    {
      email: OWNER,
      password: 'owner-password',
    },
  );
  client.close();
  return authorization;
}

/** A key limited to reading one lock (issue 23), made by the owner's full-access key over /ext. */
export async function scopedKey(server: Lockcloud): Promise<string> {
  const client = new HttpClient(server.url, 1);
  const made = await client.json<{ key: string }>(
    'POST',
    '/ext/keys',
    { authorization: OWNER_KEY },
    { name: 'read-path bench', scopes: ['locks:read'], lock_ids: [LOCK_A] },
  );
  client.close();
  return made.key;
}

/**
 * An OAuth access token (issue 24) granted what the scoped key has (locks:read, this lock), from
 * the real flow against the server whose data directory is `dataDir`: a public app registered on the dashboard's Apps page, the owner's consent, the
 * code exchanged with PKCE.
 */
export async function bearerToken(server: Lockcloud, dataDir: string): Promise<string> {
  const t = { url: server.url } as TestServer;
  const browser = new FormClient(t);
  await browser.get('/dashboard/login');
  await browser.post('/dashboard/login', { email: OWNER, password: 'owner-password' });
  await browser.get('/dashboard/apps');
  const registered = await browser.post('/dashboard/apps', {
    name: 'read-path bench',
    redirect_uris: REDIRECT,
    kind: 'public',
  });
  if (registered.status !== 303) throw new Error(`registering the bench's app: ${registered.status}`);
  const db = new BetterSqlite3(join(dataDir, 'lockcloud.sqlite'), { readonly: true });
  const { id } = db.prepare("SELECT id FROM oauth_apps WHERE name = 'read-path bench'").get() as {
    id: string;
  };
  db.close();
  const app = { app: { id } as never, secret: null, client: { client_id: id }, auth: oauth.None() };
  const as = await discover(t);
  const fields = { decision: 'allow', scope: ['locks:read'], locks: 'some', lock: [LOCK_A] };
  const { callback, verifier } = await authorize(t, browser, as, app, { scope: 'locks:read' }, fields);
  return (await exchange(as, app, callback, verifier)).access_token;
}
