/**
 * Issue 24 points 1 and 3 over plain HTTP, as a browser sends the forms: the Apps page registers an
 * app (a confidential one's secret shown once, then only its beginning; a public one has none),
 * refuses a wrong registration beside its field through Post/Redirect/Get with a 400, edits an app,
 * makes a new secret (the old one then fails at the token endpoint), deletes it; another account
 * can neither see nor change it (404). The owner's list of authorized apps shows an app once the
 * OAuth flow ran, with its scopes in words, its locks and last use, and revokes it at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OAuthApp } from '../../src/domain/oauth-app.ts';
import { SCOPE_WORDS } from '../../src/domain/oauth-app.ts';
import {
  authorize,
  discover,
  exchange,
  oauth,
  oauthError,
  REDIRECT,
  type RegisteredApp,
} from '../support/oauth.ts';
import { LOCK_B, OTHER, OWNER, startServer, type TestServer } from '../support/server.ts';
import { FormClient, refusedTo } from './support.ts';

const unescaped = (text: string) =>
  text.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
const noticeOf = (page: string) => unescaped(/data-testid="notice">([^<]*)</.exec(page)?.[1] ?? '');
const errorOf = (page: string, id: string) =>
  unescaped(new RegExp(`id="f-${id}-error">([^<]*)<`).exec(page)?.[1] ?? '');
const revealedSecret = (page: string) => /data-testid="revealed-client-secret">([^<]+)</.exec(page)?.[1];
const revealedId = (page: string) => /data-testid="revealed-client-id">([^<]+)</.exec(page)?.[1];
/** The list item of one of the account's apps, or of an authorized app. */
const itemOf = (page: string, attr: 'data-app-id' | 'data-authorized-app', id: string) =>
  page.split('<li class="app-item" ').find((chunk) => chunk.startsWith(`${attr}="${id}"`));
const cell = (item: string, col: string) =>
  unescaped(
    (new RegExp(`data-col="${col}">([\\s\\S]*?)</dd>`).exec(item)?.[1] ?? '').replace(/<[^>]+>/g, ' '),
  )
    .replace(/\s+/g, ' ')
    .trim();

describe('dashboard Apps: registering apps, and the apps an owner authorized', () => {
  let t: TestServer;
  let as: oauth.AuthorizationServer;
  let owner: FormClient;
  let developer: FormClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    as = await discover(t);
    owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    developer = new FormClient(t);
    await developer.logIn(OTHER, 'other-password');
    await developer.get('/dashboard/apps');
  });
  after(() => t?.close());

  const accountOf = async (email: string) => {
    const account = await t.server.store.accounts.findByEmail(email);
    assert.ok(account, email);
    return account.id;
  };
  const stored = async (id: string): Promise<OAuthApp> =>
    t.server.lockcloud.oauthApps.get(await accountOf(OTHER), id);
  /** The app as test/support/oauth.ts drives it, with the secret the page showed. */
  const client = (app: OAuthApp, secret: string | null): RegisteredApp => ({
    app,
    secret,
    client: { client_id: app.id },
    auth: secret === null ? oauth.None() : oauth.ClientSecretBasic(secret),
  });

  async function register(fields: Record<string, string>) {
    const res = await developer.send('/dashboard/apps', fields);
    assert.equal(res.posted, 303);
    return res;
  }

  it('shows the section in the sidebar, with both cards empty', async () => {
    const { status, text } = await owner.get('/dashboard/apps');
    assert.equal(status, 200);
    assert.match(text, /<a href="\/dashboard\/apps" class="active" aria-current="page">Apps<\/a>/);
    assert.match(text, /Apps you authorized/);
    assert.match(text, /data-testid="no-authorized"/);
    assert.match(text, /data-testid="no-apps"/);
    assert.match(text, /<input type="radio" name="kind" value="confidential" checked>/);
  });

  it('registers a confidential app: the client id and secret shown once, then only the beginning', async () => {
    const res = await register({
      name: 'Home Dashboard',
      redirect_uris: `${REDIRECT}\r\n\r\n  https://home.example/callback  \r\n`,
      kind: 'confidential',
    });
    assert.match(res.location, /^\/dashboard\/apps\/secret\/[A-Za-z0-9_-]{22}$/);
    assert.equal(res.status, 200);
    const secret = revealedSecret(res.text) ?? '';
    const id = revealedId(res.text) ?? '';
    assert.match(secret, /^lcs_[A-Za-z0-9_-]{40,}$/);
    assert.match(id, /^lca_/);
    assert.match(res.text, /Copy your new client secret now\.<\/strong> It is shown only once/);
    assert.equal(noticeOf(res.text), 'Home Dashboard is registered.');

    const app = await stored(id);
    assert.deepEqual(app.redirectUris, [REDIRECT, 'https://home.example/callback']);
    assert.equal(app.kind, 'confidential');
    const item = itemOf(res.text, 'data-app-id', id) ?? '';
    assert.match(
      item,
      new RegExp(`<code class="secret" id="client-${id}" data-col="client-id">${id}</code>`),
    );
    assert.match(item, new RegExp(`data-copy="client-${id}"`));
    assert.equal(cell(item, 'kind'), 'Confidential: a server that keeps a secret');
    assert.equal(cell(item, 'redirect-uris'), `${REDIRECT} https://home.example/callback`);
    assert.match(cell(item, 'created'), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);

    // The reveal's link a second time, and the page itself: only the secret's beginning.
    const again = await developer.get(res.location);
    assert.equal(again.status, 410);
    assert.match(noticeOf(again.text), /showed a new client secret once/);
    const page = await developer.get('/dashboard/apps');
    assert.ok(!page.text.includes(secret), 'the secret is not shown again');
    assert.equal(cell(itemOf(page.text, 'data-app-id', id) ?? '', 'secret'), `${secret.slice(0, 10)}…`);
    // The secret the page showed is the app's.
    const found = await t.server.lockcloud.oauthApps.clientFor(id);
    assert.ok(found?.secretHash);
    assert.ok(t.server.lockcloud.oauthApps.secretMatches(found.secretHash, secret));
  });

  it('registers a public app: its client id, no secret', async () => {
    const res = await register({
      name: 'Phone app',
      redirect_uris: 'com.example.phone:/callback',
      kind: 'public',
    });
    assert.match(res.location, /^\/dashboard\/apps\?note=/);
    assert.equal(revealedSecret(res.text), undefined);
    const id = /Its client id is (lca_[A-Za-z0-9_-]+);/.exec(noticeOf(res.text))?.[1] ?? '';
    assert.match(
      noticeOf(res.text),
      /registered as a public app\. .* it has no secret: it proves itself with PKCE\./,
    );
    const item = itemOf(res.text, 'data-app-id', id) ?? '';
    assert.equal(cell(item, 'kind'), 'Public: a native or single-page app, PKCE only');
    assert.equal(cell(item, 'secret'), 'None (PKCE only)');
    assert.doesNotMatch(item, /New secret/);
    assert.equal((await stored(id)).secretPrefix, null);
  });

  it('refuses a wrong registration beside its field (400), refilled, nothing made', async () => {
    const before = (await t.server.lockcloud.oauthApps.list(await accountOf(OTHER))).length;
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ name: '', redirect_uris: REDIRECT }, 'name', /^Must be 1 to 80 characters\.$/],
      [
        { name: 'Plain http', redirect_uris: 'http://app.example/callback' },
        'redirect_uris',
        /^"http:\/\/app\.example\/callback" uses http to a host other than loopback; use https\.$/,
      ],
      [
        { name: 'Fragment', redirect_uris: 'https://app.example/callback#top' },
        'redirect_uris',
        /has a fragment \(#\), which a redirect URI may not\.$/,
      ],
      [
        { name: 'Custom scheme', redirect_uris: 'com.example.app:/callback', kind: 'confidential' },
        'redirect_uris',
        /uses a private-use scheme, which only a public \(native\) app may\.$/,
      ],
      [{ name: 'No URIs', redirect_uris: '  \n ' }, 'redirect_uris', /^Must be a list of 1 to 10 URIs\.$/],
    ];
    for (const [fields, field, message] of cases) {
      const res = await register(fields);
      const what = JSON.stringify(fields);
      assert.ok(refusedTo(res.location), `${what}: ${res.location}`);
      assert.equal(res.status, 400, what);
      assert.equal(noticeOf(res.text), 'Check the form.', what);
      assert.match(errorOf(res.text, field), message, what);
      assert.match(res.text, new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`), what);
      // Refilled as sent.
      if (fields.name)
        assert.match(res.text, new RegExp(`id="f-name" name="name"[^>]*value="${fields.name}"`));
      assert.equal(revealedSecret(res.text), undefined, what);
    }
    // Both wrong: both said.
    const both = await register({ name: '', redirect_uris: 'ftp://x' });
    assert.ok(errorOf(both.text, 'name'));
    assert.ok(errorOf(both.text, 'redirect_uris'));
    // A reload shows the page, the refusal gone.
    const reload = await developer.get(both.location);
    assert.equal(reload.status, 200);
    assert.equal(errorOf(reload.text, 'name'), '');
    assert.equal((await t.server.lockcloud.oauthApps.list(await accountOf(OTHER))).length, before);
  });

  it('edits an app; a wrong edit is refused beside its own form', async () => {
    const made = await register({ name: 'Before', redirect_uris: REDIRECT });
    const id = revealedId(made.text) ?? '';
    const edited = await developer.send(`/dashboard/apps/${id}`, {
      name: 'After',
      redirect_uris: `${REDIRECT}\nhttps://after.example/cb`,
    });
    assert.ok(!refusedTo(edited.location), edited.location);
    assert.equal(noticeOf(edited.text), 'After is saved.');
    const app = await stored(id);
    assert.equal(app.name, 'After');
    assert.deepEqual(app.redirectUris, [REDIRECT, 'https://after.example/cb']);
    assert.equal(app.kind, 'confidential');

    const refused = await developer.send(`/dashboard/apps/${id}`, {
      name: 'After',
      redirect_uris: 'http://evil.example/cb',
    });
    assert.ok(refusedTo(refused.location));
    assert.equal(refused.status, 400);
    assert.match(errorOf(refused.text, `${id}-redirect_uris`), /uses http to a host other than loopback/);
    // The edit's fold opens, refilled as sent; the register form is left alone.
    assert.match(refused.text, /<details class="app-edit" open>/);
    assert.match(refused.text, />http:\/\/evil\.example\/cb<\/textarea>/);
    assert.equal(errorOf(refused.text, 'redirect_uris'), '');
    assert.deepEqual((await stored(id)).redirectUris, [REDIRECT, 'https://after.example/cb']);
  });

  it('makes a new secret, shown once: the old one no longer gets tokens', async () => {
    const made = await register({ name: 'Rotating', redirect_uris: REDIRECT });
    const id = revealedId(made.text) ?? '';
    const oldSecret = revealedSecret(made.text) ?? '';
    const rotated = await developer.send(`/dashboard/apps/${id}/secret`, {});
    assert.match(rotated.location, /^\/dashboard\/apps\/secret\//);
    const newSecret = revealedSecret(rotated.text) ?? '';
    assert.match(newSecret, /^lcs_/);
    assert.notEqual(newSecret, oldSecret);
    assert.equal(revealedId(rotated.text), id);
    assert.match(
      noticeOf(rotated.text),
      /^Rotating has a new secret; the old one stopped working at once\.$/,
    );

    const app = await stored(id);
    const first = await authorize(t, owner, as, client(app, oldSecret), { scope: 'locks:read' });
    assert.equal(
      await oauthError(exchange(as, client(app, oldSecret), first.callback, first.verifier)),
      'invalid_client',
    );
    const second = await authorize(t, owner, as, client(app, newSecret), { scope: 'locks:read' });
    const tokens = await exchange(as, client(app, newSecret), second.callback, second.verifier);
    assert.match(tokens.access_token, /^lco_/);
    // A public app has no secret to replace.
    const pub = await register({ name: 'No secret', redirect_uris: REDIRECT, kind: 'public' });
    const pubId = /Its client id is (lca_[A-Za-z0-9_-]+);/.exec(noticeOf(pub.text))?.[1] ?? '';
    const refused = await developer.send(`/dashboard/apps/${pubId}/secret`, {});
    assert.equal(refused.status, 400);
    assert.equal(noticeOf(refused.text), 'A public app has no secret to replace.');
  });

  it('another account can neither see nor edit, rotate or delete an app (404)', async () => {
    const made = await register({ name: 'Private to other', redirect_uris: REDIRECT });
    const id = revealedId(made.text) ?? '';
    const page = await owner.get('/dashboard/apps');
    assert.ok(!page.text.includes(id), 'not listed for another account');
    assert.ok(!page.text.includes('Private to other'));
    for (const [path, fields] of [
      [`/dashboard/apps/${id}`, { name: 'Taken', redirect_uris: REDIRECT }],
      [`/dashboard/apps/${id}/secret`, {}],
      [`/dashboard/apps/${id}/delete`, {}],
      [`/dashboard/apps/authorized/${id}/revoke`, {}],
    ] as const) {
      const res = await owner.send(path, fields);
      assert.ok(refusedTo(res.location), path);
      assert.equal(res.status, 404, path);
      assert.match(
        noticeOf(res.text),
        /^No such app of this account\.$|^This account has not authorized that app\.$/,
      );
      assert.ok(!res.text.includes('Private to other'), path);
    }
    const app = await stored(id);
    assert.equal(app.name, 'Private to other');
    assert.equal(app.secretPrefix, (revealedSecret(made.text) ?? '').slice(0, 10));
  });

  it('lists an app the owner authorized, with scopes in words, locks and last use; revoke ends it', async () => {
    const made = await register({ name: 'Porch Helper', redirect_uris: REDIRECT });
    const id = revealedId(made.text) ?? '';
    const app = client(await stored(id), revealedSecret(made.text) ?? '');
    const { callback, verifier } = await authorize(
      t,
      owner,
      as,
      app,
      { scope: 'locks:read events:read' },
      { decision: 'allow', scope: ['locks:read', 'events:read'], locks: 'some', lock: [LOCK_B] },
    );
    const tokens = await exchange(as, app, callback, verifier);
    let page = await owner.get('/dashboard/apps');
    let item = itemOf(page.text, 'data-authorized-app', id) ?? '';
    assert.ok(item, 'listed');
    assert.match(item, /<h3>Porch Helper<\/h3>/);
    assert.match(item, new RegExp(`<code>${id}</code>`));
    assert.equal(
      cell(item, 'scopes'),
      `${SCOPE_WORDS['locks:read']} locks:read ${SCOPE_WORDS['events:read']} events:read`,
    );
    assert.equal(cell(item, 'locks'), 'Back door');
    assert.match(cell(item, 'granted'), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(cell(item, 'last-used'), 'never');

    const bearer = { key: `Bearer ${tokens.access_token}` };
    assert.equal((await t.request('/public/locks', bearer)).status, 200);
    page = await owner.get('/dashboard/apps');
    item = itemOf(page.text, 'data-authorized-app', id) ?? '';
    assert.match(cell(item, 'last-used'), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // The developer's own page does not list the owner's authorization.
    assert.equal(itemOf((await developer.get('/dashboard/apps')).text, 'data-authorized-app', id), undefined);

    const revoked = await owner.send(`/dashboard/apps/authorized/${id}/revoke`, {});
    assert.ok(!refusedTo(revoked.location), revoked.location);
    assert.equal(
      noticeOf(revoked.text),
      'Porch Helper is revoked: it can no longer reach your locks, and its tokens stopped working.',
    );
    assert.equal(itemOf(revoked.text, 'data-authorized-app', id), undefined);
    assert.equal((await t.request('/public/locks', bearer)).status, 401);
    // A second revoke: nothing to revoke.
    const again = await owner.send(`/dashboard/apps/authorized/${id}/revoke`, {});
    assert.equal(again.status, 404);
  });

  it('deletes an app: every authorization of it ends at once', async () => {
    const made = await register({ name: 'Short lived', redirect_uris: REDIRECT });
    const id = revealedId(made.text) ?? '';
    assert.match(
      made.text,
      new RegExp(`id="delete-${id}">[^<]*Deleting the app ends every authorization of it at once`),
    );
    const app = client(await stored(id), revealedSecret(made.text) ?? '');
    const { callback, verifier } = await authorize(t, owner, as, app, { scope: 'locks:read' });
    const tokens = await exchange(as, app, callback, verifier);
    assert.ok(itemOf((await owner.get('/dashboard/apps')).text, 'data-authorized-app', id));

    const deleted = await developer.send(`/dashboard/apps/${id}/delete`, {});
    assert.ok(!refusedTo(deleted.location), deleted.location);
    assert.equal(
      noticeOf(deleted.text),
      'Short lived is deleted: every authorization of it ended, and its tokens stopped working.',
    );
    assert.equal(itemOf(deleted.text, 'data-app-id', id), undefined);
    await assert.rejects(stored(id), { code: 'APP_NOT_FOUND' });
    assert.equal(itemOf((await owner.get('/dashboard/apps')).text, 'data-authorized-app', id), undefined);
    assert.equal((await t.request('/public/locks', { key: `Bearer ${tokens.access_token}` })).status, 401);
    assert.equal((await developer.send(`/dashboard/apps/${id}/delete`, {})).status, 404);
  });

  it('refuses a form without the CSRF token (403), and sends a visitor without a session to log in', async () => {
    const res = await developer.post('/dashboard/apps', {
      _csrf: '',
      name: 'No token',
      redirect_uris: REDIRECT,
    });
    assert.equal(res.status, 403);
    const stranger = new FormClient(t);
    const page = await stranger.get('/dashboard/apps');
    assert.equal(page.status, 303);
    assert.equal(page.res.headers.get('location'), '/dashboard/login?next=%2Fdashboard%2Fapps');
  });
});
