/**
 * Issue 23 point 3, over plain HTTP as a browser sends the form: API Settings adds a key limited to
 * scopes, locks and an expiry date (or with full access, as the form without choices always did),
 * its table shows each key's limits and last use with the client address, and every wrong choice is
 * refused next to its field through Post/Redirect/Get, the form refilled, no key made, never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_LOCK,
  OWNER,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { FormClient, latestCode, refusedTo } from './support.ts';

const noticeOf = (page: string) => /data-testid="notice">([^<]*)</.exec(page)?.[1];
const keyCount = (page: string) => (page.match(/data-key-id="/g) ?? []).length;
const errorOf = (page: string, name: string) =>
  new RegExp(`id="f-${name}-error">([^<]*)<`).exec(page)?.[1]?.replaceAll('&quot;', '"');
const revealed = (page: string) => /data-testid="revealed-key">([^<]+)</.exec(page)?.[1] ?? '';

interface Row {
  readonly scopes: string;
  readonly locks: string;
  readonly expires: string;
  readonly lastUsed: string;
  readonly lastIp: string;
}

/** The table row of the key whose secret is `key` (its prefix is the key's first 10 characters). */
function rowOf(page: string, key: string): Row {
  const row = new RegExp(`<tr data-key-id="[^"]+"><td><code>${key.slice(0, 10)}…</code>[\\s\\S]*?</tr>`).exec(
    page,
  )?.[0];
  assert.ok(row, `no row for ${key.slice(0, 10)}`);
  const cell = (col: string) =>
    (new RegExp(`data-col="${col}">([\\s\\S]*?)</td>`).exec(row)?.[1] ?? '').replace(/<[^>]+>/g, '').trim();
  return {
    scopes: cell('scopes'),
    locks: cell('locks'),
    expires: cell('expires'),
    lastUsed: cell('last-used'),
    lastIp: cell('last-ip'),
  };
}

/** A date `days` from the server's clock, as the form's date field sends it. */
async function dayFromNow(t: TestServer, days: number): Promise<string> {
  const res = await t.request('/_sim/clock');
  const { now } = (await res.json()) as { now: string };
  return new Date(Date.parse(now) + days * 86_400_000).toISOString().slice(0, 10);
}

async function unlocked(t: TestServer): Promise<FormClient> {
  const c = new FormClient(t);
  await c.logIn(OWNER, 'owner-password');
  await c.get('/dashboard/api-settings');
  await c.submit('/dashboard/api-settings/code', {});
  await c.submit('/dashboard/api-settings/confirm', {
    code: await latestCode(t, OWNER, /API Settings code/),
  });
  return c;
}

describe('dashboard API Settings: scoped, expiring keys', () => {
  let t: TestServer;
  let owner: FormClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    owner = await unlocked(t);
  });
  after(() => t?.close());

  it('the form offers every scope and the owner’s own locks, full access chosen', async () => {
    const { text } = await owner.get('/dashboard/api-settings');
    assert.match(text, /<input type="radio" name="access" value="all" checked>/);
    for (const scope of ['locks:read', 'locks:operate', 'events:read', 'webhooks:manage', 'keys:manage'])
      assert.match(text, new RegExp(`name="scope" value="${scope}"`));
    assert.match(text, new RegExp(`name="lock" value="${LOCK_A}"> Front door`));
    assert.match(text, new RegExp(`name="lock" value="${LOCK_B}"> Back door`));
    assert.doesNotMatch(text, new RegExp(OTHER_LOCK), 'another account’s lock is not offered');
    assert.match(text, /name="expires" type="date"/);
  });

  it('a key with scopes, a lock and an expiry: shown once, its limits in the table, held by the API', async () => {
    const expires = await dayFromNow(t, 10);
    const page = await owner.submit('/dashboard/api-settings/keys', {
      name: 'door bot',
      access: 'some',
      scope: ['locks:operate', 'events:read'],
      lock: [LOCK_B],
      expires,
    });
    assert.equal(noticeOf(page.text), 'A new key is ready.');
    const key = revealed(page.text);
    assert.match(key, /^lck_/);
    assert.deepEqual(rowOf(page.text, key), {
      scopes: 'locks:operate, events:read',
      locks: 'Back door',
      expires: `${expires} 00:00 UTC`,
      lastUsed: 'never',
      lastIp: '—',
    });
    assert.match(page.text, /door bot/);

    const listed = (await (await t.request('/ext/keys', { key: 'owner-api-key-0001' })).json()) as {
      keys: { prefix: string; scopes: string[]; lock_ids: string[]; expires_at: string; name: string }[];
    };
    const made = listed.keys.find((k) => key.startsWith(k.prefix));
    assert.deepEqual(
      { scopes: made?.scopes, lock_ids: made?.lock_ids, expires_at: made?.expires_at, name: made?.name },
      {
        scopes: ['locks:operate', 'events:read'],
        lock_ids: [LOCK_B],
        expires_at: `${expires}T00:00:00.000Z`,
        name: 'door bot',
      },
    );

    // Its use: a lock of its list answers, another is refused as not there; the use is then shown.
    assert.equal((await t.request(`/ext/locks/${LOCK_B}`, { key })).status, 200);
    assert.equal((await t.request(`/ext/locks/${LOCK_A}`, { key })).status, 404);
    const after = rowOf((await owner.get('/dashboard/api-settings')).text, key);
    assert.match(after.lastUsed, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.match(after.lastIp, /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
  });

  it('every scope with no other choice is "Full access"; every scope on some locks is not', async () => {
    const full = await owner.submit('/dashboard/api-settings/keys', { access: 'all' });
    assert.deepEqual(
      { ...rowOf(full.text, revealed(full.text)), lastUsed: '', lastIp: '' },
      { scopes: 'Full access', locks: 'All locks', expires: 'Never', lastUsed: '', lastIp: '' },
    );
    const someLocks = await owner.submit('/dashboard/api-settings/keys', { lock: [LOCK_A, LOCK_B] });
    const row = rowOf(someLocks.text, revealed(someLocks.text));
    assert.equal(row.scopes, 'Every scope');
    assert.equal(row.locks, 'Front door, Back door');
  });

  const refusals: [string, Record<string, string | string[]>, Record<string, RegExp>][] = [
    ['no scope chosen', { access: 'some' }, { scopes: /Choose at least one scope/ }],
    [
      'a scope ticked beside every scope',
      { access: 'all', scope: ['locks:read'] },
      { scopes: /Every scope is chosen/ },
    ],
    [
      'an unknown scope',
      { access: 'some', scope: ['locks:admin'] },
      { scopes: /"locks:admin" is not a scope/ },
    ],
    ['another account’s lock', { lock: [OTHER_LOCK] }, { locks: /is not one of your locks/ }],
    ['an unknown lock', { lock: ['no-such-lock'] }, { locks: /"no-such-lock" is not one of your locks/ }],
    ['an expiry in the past', { expires: '2020-01-01' }, { expires: /Choose a date after today/ }],
    ['an expiry that is no date', { expires: 'soon' }, { expires: /Give a date as YYYY-MM-DD/ }],
    ['a name too long', { name: 'n'.repeat(65) }, { name: /1 to 64 characters/ }],
    [
      'several at once',
      { access: 'some', expires: '2020-01-01' },
      { scopes: /Choose at least one scope/, expires: /Choose a date after today/ },
    ],
  ];
  for (const [what, fields, expected] of refusals)
    it(`refused: ${what}, next to its field, the form refilled, no key made`, async () => {
      const before = keyCount((await owner.get('/dashboard/api-settings')).text);
      const sent = await owner.send('/dashboard/api-settings/keys', fields);
      assert.equal(sent.posted, 303);
      assert.ok(refusedTo(sent.location), sent.location);
      assert.equal(sent.status, 400);
      assert.equal(noticeOf(sent.text), 'Check the form.');
      for (const [name, message] of Object.entries(expected))
        assert.match(errorOf(sent.text, name) ?? '', message);
      assert.equal(keyCount(sent.text), before, 'no key made');
      assert.doesNotMatch(sent.text, /data-testid="revealed-key"/);
      if (typeof fields.expires === 'string')
        assert.match(sent.text, new RegExp(`name="expires" type="date" value="${fields.expires}"`));
      for (const lock of [fields.lock ?? []].flat())
        if (lock === LOCK_A || lock === LOCK_B)
          assert.match(sent.text, new RegExp(`name="lock" value="${lock}" checked`));
    });

  it('a key past its expiry is shown expired (and refused by the API)', async () => {
    const expires = await dayFromNow(t, 2);
    const page = await owner.submit('/dashboard/api-settings/keys', { expires });
    const key = revealed(page.text);
    assert.equal(rowOf(page.text, key).expires, `${expires} 00:00 UTC`);
    await advanceClock(t, 3 * 86_400);
    assert.equal((await t.request('/ext/locks', { key })).status, 401);
    // Three days end the session too: the table shows to a new one, before any code.
    const again = new FormClient(t);
    await again.logIn(OWNER, 'owner-password');
    const row = rowOf((await again.get('/dashboard/api-settings')).text, key);
    assert.equal(row.expires, `expired ${expires} 00:00 UTC`);
  });
});
