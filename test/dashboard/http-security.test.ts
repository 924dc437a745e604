/**
 * The dashboard over plain HTTP: security headers, cookie flags, CSRF on every mutation, what a
 * visitor without a session gets, sessions ended by a sandbox reset, and production mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCK_A, OWNER, startServer, type TestServer } from '../support/server.ts';
import { carriedOut, FormClient } from './support.ts';

describe('dashboard security over HTTP', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--trust-proxy', 'loopback'] });
  });
  after(() => t.close());

  it('GET /dashboard/login carries a CSP without inline scripts, frame-ancestors none and nosniff', async () => {
    const res = await fetch(`${t.url}/dashboard/login`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    assert.doesNotMatch(page, /<script(?![^>]*\ssrc=)/, 'no inline script element');
    assert.doesNotMatch(page, /\son[a-z]+=/i, 'no inline event handler');
  });

  it('the session cookie is HttpOnly and SameSite=Lax, and Secure when served over https', async () => {
    const plain = new FormClient(t);
    await plain.get('/dashboard/login');
    const res = await fetch(`${t.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: plain.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: plain.csrf, email: OWNER, password: 'owner-password' }),
    });
    const session = res.headers.getSetCookie().find((c) => c.startsWith('lc_session=')) ?? '';
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Lax/);
    assert.doesNotMatch(session, /; Secure/);

    const viaTls = await fetch(`${t.url}/dashboard/login`, { headers: { 'x-forwarded-proto': 'https' } });
    const anon = viaTls.headers.getSetCookie().find((c) => c.startsWith('lc_anon=')) ?? '';
    assert.match(anon, /; Secure/);
  });

  it('refuses a form without its CSRF token, with a wrong one, or from another origin (403)', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const creds = { email: OWNER, password: 'owner-password' };
    assert.equal((await c.post('/dashboard/login', { ...creds, _csrf: '' })).status, 403);
    assert.equal((await c.post('/dashboard/login', { ...creds, _csrf: 'x'.repeat(64) })).status, 403);
    const foreign = await c.post('/dashboard/login', creds, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.text, /another site/);
    assert.equal(c.cookie('lc_session'), undefined, 'no session was opened');
    assert.ok(carriedOut(await c.post('/dashboard/login', creds)));
  });

  it('binds the token to the session: the token of the page before login no longer works after it', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const before = c.csrf;
    await c.post('/dashboard/login', { email: OWNER, password: 'owner-password' });
    const stale = await c.post(`/dashboard/locks/${LOCK_A}/integration`, { enabled: 'off', _csrf: before });
    assert.equal(stale.status, 403);
    await c.get('/dashboard/locks');
    assert.notEqual(c.csrf, before);
    assert.ok(carriedOut(await c.post(`/dashboard/locks/${LOCK_A}/integration`, { enabled: 'on' })));
  });

  it('the JSON command endpoint needs the X-CSRF-Token header', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    const send = (headers: Record<string, string>) =>
      fetch(`${t.url}/dashboard/api/locks/${LOCK_A}/commands`, {
        method: 'POST',
        headers: { cookie: c.cookieHeader(), 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ command: 'sync' }),
      });
    const refused = await send({});
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: string }).error, 'FORBIDDEN');
    const accepted = await send({ 'x-csrf-token': c.csrf });
    assert.equal(accepted.status, 202);
    const task = (await accepted.json()) as { task_id: string };
    const read = await fetch(`${t.url}/dashboard/api/tasks/${task.task_id}`, {
      headers: { cookie: c.cookieHeader() },
    });
    assert.equal(read.status, 200);
  });

  it('sends a visitor without a session to log in; the JSON API answers 401', async () => {
    const page = await fetch(`${t.url}/dashboard/api-settings`, { redirect: 'manual' });
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/dashboard/login?next=%2Fdashboard%2Fapi-settings');
    const api = await fetch(`${t.url}/dashboard/api/locks`);
    assert.equal(api.status, 401);
    assert.deepEqual(await api.json(), { error: 'UNAUTHORIZED', message: 'Log in again.' });
    const forged = await fetch(`${t.url}/dashboard/locks`, {
      headers: { cookie: 'lc_session=forged' },
      redirect: 'manual',
    });
    assert.equal(forged.status, 303);
  });

  it('a redirect after login never leaves the dashboard', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const res = await c.post('/dashboard/login', {
      email: OWNER,
      password: 'owner-password',
      next: '//evil.example/x',
    });
    assert.equal(res.res.headers.get('location'), '/dashboard/locks');
  });

  it('escapes what people typed', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    const res = await c.send('/dashboard/signup', { email: '<script>alert(1)</script>', password: 'x' });
    assert.equal(res.status, 400);
    assert.ok(!res.text.includes('<script>alert(1)'), 'the input is escaped');
    assert.ok(res.text.includes('&lt;script&gt;'));
  });

  it('the sandbox reset ends every session', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    assert.equal((await c.get('/dashboard/locks')).status, 200);
    assert.equal((await t.request('/_sim/reset', { method: 'POST' })).status, 204);
    assert.equal((await c.get('/dashboard/locks')).status, 303);
  });

  it('keeps dashboard routes out of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard') || p === '/'),
      [],
    );
  });
});

describe('dashboard in production mode', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--production'] });
  });
  after(() => t.close());

  it('shows the mobile app read-only and has no route to play it', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    const page = await c.get('/dashboard/locks');
    assert.match(page.text, /Shown as the app reports it/);
    assert.doesNotMatch(page.text, /Open the app/);
    assert.equal((await c.post(`/dashboard/locks/${LOCK_A}/app`, { open: 'yes' })).status, 404);
  });
});
