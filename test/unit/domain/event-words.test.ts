import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPES, LOCK_METHODS } from '../../../src/domain/event.ts';
import { actorWords, type EventForWords, eventWords, wordsInput } from '../../../src/domain/event-words.ts';

const key = { kind: 'api_key', keyPrefix: 'lck_4tj2' };
const ev = (type: string, over: Partial<EventForWords> = {}): EventForWords => ({
  type,
  actor: { kind: 'device' },
  method: null,
  data: {},
  ...over,
});

describe('eventWords', () => {
  it('says a movement with who and how, for every method', () => {
    assert.equal(
      eventWords(ev('lock.unlocked', { actor: key, method: 'api_v3' })),
      'Unlocked by API key lck_4tj2… (v3)',
    );
    assert.equal(eventWords(ev('lock.locked', { method: 'manual' })), 'Locked by hand');
    assert.equal(
      eventWords(ev('lock.unlocked', { actor: { kind: 'dashboard_session' }, method: 'dashboard' })),
      'Unlocked from the dashboard',
    );
    assert.equal(
      eventWords(ev('lock.locked', { actor: { kind: 'v1_token' }, method: 'api_v1' })),
      'Locked by v1 app',
    );
    assert.equal(
      eventWords(ev('lock.locked', { actor: { kind: 'partner', keyPrefix: 'lck_9x' }, method: 'partner' })),
      'Locked by partner automation (API key lck_9x…)',
    );
    assert.equal(eventWords(ev('lock.locked', { method: 'auto' })), 'Locked automatically');
    for (const method of LOCK_METHODS)
      assert.match(eventWords(ev('lock.locked', { actor: key, method })), /^Locked \S/);
  });

  it('does without the key prefix a guest is not shown', () => {
    assert.equal(
      eventWords(ev('lock.unlocked', { actor: { kind: 'api_key' }, method: 'api_v3' })),
      'Unlocked by API key (v3)',
    );
  });

  it('says reach and battery', () => {
    assert.equal(eventWords(ev('lock.offline')), 'Went offline');
    assert.equal(eventWords(ev('lock.online')), 'Came back online');
    assert.equal(
      eventWords(ev('lock.battery_low', { data: { battery: 5, threshold: 10 } })),
      'Battery low (5 %, under 10 %)',
    );
    assert.equal(
      eventWords(ev('lock.battery_ok', { data: { battery: 40, threshold: 10 } })),
      'Battery OK again (40 %)',
    );
    assert.equal(
      eventWords(ev('lock.battery_critical', { data: { battery: 4, threshold: 10 } })),
      'Battery critical (4 %, under 10 %)',
    );
  });

  it('says the lock’s health: jams, the door, auto-lock, a lock locked with the door open', () => {
    assert.equal(eventWords(ev('lock.jammed')), 'Jammed: the bolt is blocked');
    assert.equal(eventWords(ev('lock.unjammed')), 'No longer jammed');
    assert.equal(eventWords(ev('lock.door_opened')), 'Door opened');
    assert.equal(eventWords(ev('lock.door_closed')), 'Door closed');
    assert.equal(
      eventWords(ev('lock.auto_locked', { data: { after_seconds: 30 } })),
      'Auto-locked 30 s after unlocking',
    );
    assert.equal(eventWords(ev('lock.auto_locked')), 'Auto-locked');
    assert.equal(
      eventWords(ev('lock.locked', { method: 'manual', data: { door: 'open' } })),
      'Locked by hand with the door open',
    );
    assert.equal(
      eventWords(ev('lock.locked', { actor: key, method: 'api_v3', data: { door: 'open' } })),
      'Locked by API key lck_4tj2… (v3) with the door open',
    );
  });

  it('says commands: requested, succeeded, failed with the reason and the method', () => {
    const cmd = { actor: key, method: 'api_v3' };
    assert.equal(
      eventWords(ev('command.requested', { ...cmd, data: { command: 'unlock' } })),
      'Unlock requested by API key lck_4tj2… (v3)',
    );
    assert.equal(
      eventWords(ev('command.succeeded', { ...cmd, data: { command: 'lock' } })),
      'Lock succeeded (v3)',
    );
    assert.equal(
      eventWords(ev('command.failed', { method: 'partner', data: { command: 'unlock', reason: 'JAMMED' } })),
      'Unlock failed: JAMMED (partner)',
    );
    assert.equal(
      eventWords(ev('command.requested', { actor: { kind: 'account' }, data: { command: 'sync' } })),
      'Sync requested',
    );
  });

  it('says access points, shares, keys, the webhook and the account', () => {
    assert.equal(
      eventWords(ev('access_point.online', { data: { name: 'Home' } })),
      'Access point Home connected',
    );
    assert.equal(
      eventWords(ev('access_point.offline', { data: { access_point_id: 'ap-1' } })),
      'Access point ap-1 went away',
    );
    assert.equal(eventWords(ev('share.created', { data: { account_id: 'a-2' } })), 'Shared with account a-2');
    assert.equal(
      eventWords(ev('share.removed', { data: { account_id: 'a-2' } })),
      'Share with account a-2 ended',
    );
    assert.equal(
      eventWords(ev('api_key.created', { data: { key_prefix: 'lck_9xQe0b' } })),
      'API key lck_9xQe0b… created',
    );
    assert.equal(
      eventWords(ev('api_key.deleted', { data: { key_prefix: 'lck_9xQe0b' } })),
      'API key lck_9xQe0b… deleted',
    );
    assert.equal(
      eventWords(ev('webhook.updated', { data: { host: 'hooks.example.com' } })),
      'Webhook set to hooks.example.com',
    );
    assert.equal(eventWords(ev('webhook.removed')), 'Webhook removed');
    const endpoint = { host: 'hooks.example.com', endpoint_id: 'we_1' };
    assert.equal(
      eventWords(ev('webhook.endpoint_created', { data: endpoint })),
      'Webhook endpoint to hooks.example.com added',
    );
    assert.equal(
      eventWords(ev('webhook.endpoint_updated', { data: endpoint })),
      'Webhook endpoint to hooks.example.com changed',
    );
    assert.equal(
      eventWords(ev('webhook.endpoint_removed', { data: endpoint })),
      'Webhook endpoint to hooks.example.com removed',
    );
    assert.equal(
      eventWords(ev('webhook.endpoint_disabled', { data: { ...endpoint, reason: 'failing for 3 days' } })),
      'Webhook endpoint to hooks.example.com disabled (failing for 3 days)',
    );
    assert.equal(
      eventWords(ev('account.password_changed', { data: { how: 'changed' } })),
      'Password changed',
    );
    assert.equal(
      eventWords(ev('account.password_changed', { data: { how: 'reset' } })),
      'Password reset with an e-mailed code',
    );
    assert.equal(
      eventWords(ev('account.password_changed', { data: { how: 'admin' } })),
      'Password set by the operator',
    );
    assert.equal(
      eventWords(ev('account.login_failed', { data: { client_ip: '203.0.113.7' } })),
      'Failed login from 203.0.113.7',
    );
  });

  it('has words of its own for every type, and says an unknown type as its name', () => {
    for (const type of EVENT_TYPES) assert.notEqual(eventWords(ev(type)), type, type);
    assert.equal(eventWords(ev('lock.teleported')), 'lock.teleported');
  });

  it('says an OAuth app by the name it had when it acted, and without it (a guest) as an app', () => {
    const app = { kind: 'oauth_app', appName: 'Home Helper' };
    assert.equal(
      eventWords(ev('lock.unlocked', { actor: app, method: 'api_ext' })),
      'Unlocked by the app «Home Helper» (ext)',
    );
    assert.equal(
      eventWords(ev('command.requested', { actor: app, method: 'api_ext', data: { command: 'lock' } })),
      'Lock requested by the app «Home Helper» (ext)',
    );
    assert.equal(
      eventWords(ev('lock.locked', { actor: { kind: 'oauth_app' }, method: 'api_ext' })),
      'Locked by an app (ext)',
    );
    const wire = {
      type: 'lock.locked',
      actor: { kind: 'oauth_app', account_id: 'a-1', app_id: 'app_1', app_name: 'Home Helper' },
      method: 'api_ext',
      data: {},
    };
    assert.equal(eventWords(wordsInput(wire)), 'Locked by the app «Home Helper» (ext)');
  });

  it('reads the wire JSON through wordsInput', () => {
    const wire = {
      type: 'lock.unlocked',
      actor: { kind: 'api_key', key_prefix: 'lck_4tj2' },
      method: 'api_v3',
      data: {},
    };
    assert.equal(eventWords(wordsInput(wire)), 'Unlocked by API key lck_4tj2… (v3)');
  });
});

describe('actorWords', () => {
  it('names every kind of actor', () => {
    assert.equal(actorWords(key), 'API key lck_4tj2…');
    assert.equal(actorWords({ kind: 'partner', keyPrefix: 'lck_1' }), 'Partner (API key lck_1…)');
    assert.equal(actorWords({ kind: 'v1_token' }), 'v1 app');
    assert.equal(actorWords({ kind: 'dashboard_session' }), 'Dashboard');
    assert.equal(actorWords({ kind: 'account' }), 'The account (e-mailed code)');
    assert.equal(actorWords({ kind: 'device' }), 'The device');
    assert.equal(actorWords({ kind: 'system' }), 'The server');
    assert.equal(actorWords({ kind: 'grant' }), 'A guest (grant)');
    assert.equal(actorWords({ kind: 'oauth_app', appName: 'Home Helper' }), 'The app «Home Helper»');
    assert.equal(actorWords({ kind: 'oauth_app' }), 'An app');
  });
});
