/**
 * LockcloudSandboxClient against a live server in sandbox mode: each control, seen through the v3
 * and v1 clients as an integrator's test suite would, its errors as their classes with the server's
 * message, and a server started with --production, which has no sandbox.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthTokenExpiredByPasswordChangeError,
  AuthTokenExpiredError,
  BadParamsError,
  type LockcloudClient,
  LockcloudSandboxClient,
  LockcloudV1Client,
  LowBatteryError,
  NotFoundError,
  TaskFailedError,
} from '../../sdk/src/index.ts';
import { FormClient } from '../dashboard/support.ts';
import { LOCK_A, LOCK_B, OTHER, OWNER, startServer, type TestServer } from '../support/server.ts';
import { client } from './helpers.ts';

const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';

describe('sdk: LockcloudSandboxClient', () => {
  let t: TestServer;
  let c: LockcloudClient;
  let sandbox: LockcloudSandboxClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    c = client(t);
    sandbox = new LockcloudSandboxClient({ baseUrl: `${t.url}/` });
  });
  after(() => t.close());

  it('setLock answers the simulated state; fail_next makes the next command fail that way, once', async () => {
    assert.equal(sandbox.baseUrl, t.url);
    const state = await sandbox.setLock(LOCK_B, { fail_next: 'JAMMED', latency_ms: 0 });
    assert.deepEqual(state, {
      device_id: LOCK_B,
      locked: false,
      battery: 55,
      responsive: true,
      integration: true,
      access_point: true,
      app_open: false,
      latency_ms: 0,
      fail_next: 'JAMMED',
      jammed: false,
      door: 'closed',
      firmware: 'lockcloud-sim-lock/2',
      auto_lock_seconds: 0,
      protocol_version: 2,
    });
    const err = await c.run(LOCK_B, 'lock').catch((e: unknown) => e);
    assert.ok(err instanceof TaskFailedError && err.reason === 'JAMMED', String(err));
    await c.run(LOCK_B, 'lock');
    assert.equal((await c.getLock(LOCK_B)).locked, true);
  });

  it('setLock: a low battery is refused by v3; a lock turned by hand is seen by v3', async () => {
    await sandbox.setLock(LOCK_A, { battery: 5 });
    await assert.rejects(c.unlock(LOCK_A), LowBatteryError);
    await sandbox.setLock(LOCK_A, { battery: 100, locked: false });
    assert.deepEqual(await c.getLock(LOCK_A), { locked: false, battery: 100, responsive: true });
  });

  it('getClock and advanceClock: the clock moves by the seconds asked, and v1 tokens expire with it', async () => {
    const v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
    const before = await sandbox.getClock();
    assert.equal(Date.parse(before.now), before.epoch_ms);
    const moved = await sandbox.advanceClock(31 * 24 * 3600);
    assert.ok(
      moved.epoch_ms - before.epoch_ms >= 31 * 24 * 3600 * 1000,
      `${moved.epoch_ms - before.epoch_ms}`,
    );
    assert.ok((await sandbox.getClock()).epoch_ms >= moved.epoch_ms);
    await assert.rejects(v1.listLocks(), AuthTokenExpiredError);
  });

  it('changeAccount: a new password ends the earlier v1 tokens (20003)', async () => {
    const v1 = await LockcloudV1Client.login(t.url, OTHER, 'other-password');
    const changed = await sandbox.changeAccount(OTHER.toUpperCase(), { password: 'changed-password' });
    assert.deepEqual(changed, { email: OTHER, password_changed: true, deleted: false });
    await assert.rejects(v1.listLocks(), AuthTokenExpiredByPasswordChangeError);
    await LockcloudV1Client.login(t.url, OTHER, 'changed-password');
  });

  it('mailbox: the password code the dashboard mailed, newest first', async () => {
    assert.deepEqual(await sandbox.mailbox(OWNER), []);
    const form = new FormClient(t);
    await form.get('/dashboard/forgot');
    assert.equal((await form.post('/dashboard/forgot', { email: OWNER })).status, 303);
    const [mail] = await sandbox.mailbox(OWNER);
    assert.ok(mail, 'a mail');
    assert.equal(mail.to, OWNER);
    assert.match(mail.subject, /password/i);
    assert.match(mail.text, /\b\d{6}\b/);
    assert.ok(!Number.isNaN(Date.parse(mail.sent_at)));
    assert.throws(() => sandbox.mailbox(''), TypeError);
  });

  it('addLock: a simulated lock of the account, listed and moved over v3 at once; a reset removes it', async () => {
    const added = await sandbox.addLock({ owner: OWNER, nickname: 'Shed', locked: false, battery: 90 });
    assert.equal(added.owner, OWNER);
    assert.equal(added.nickname, 'Shed');
    assert.deepEqual(
      (await c.listLocks()).find((l) => l.device_id === added.device_id),
      { device_id: added.device_id, serial: added.serial, nickname: 'Shed' },
    );
    assert.deepEqual(await c.getLock(added.device_id), { locked: false, battery: 90, responsive: true });
    await c.run(added.device_id, 'lock');
    assert.equal((await c.getLock(added.device_id)).locked, true);
    await sandbox.reset();
    assert.equal(
      (await c.listLocks()).some((l) => l.device_id === added.device_id),
      false,
    );
    const nobody = await sandbox.addLock({ owner: 'nobody@example.com' }).catch((e: unknown) => e);
    assert.ok(nobody instanceof NotFoundError, String(nobody));
    const bad = await sandbox.addLock({ owner: OWNER, battery: 101 }).catch((e: unknown) => e);
    assert.ok(bad instanceof BadParamsError && /battery/.test(bad.message), String(bad));
  });

  it('reset puts the seed back: locks, passwords, the account deleted', async () => {
    await sandbox.changeAccount(OWNER, { deleted: true });
    await sandbox.setLock(LOCK_B, { battery: 7 });
    await sandbox.reset();
    assert.deepEqual(await c.getLock(LOCK_B), { locked: false, battery: 55, responsive: true });
    await LockcloudV1Client.login(t.url, OTHER, 'other-password');
    await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
  });

  it('errors: an unknown lock or account is NotFoundError, a bad field BadParamsError naming it', async () => {
    const unknown = await sandbox.setLock(UNKNOWN_LOCK, { battery: 50 }).catch((e: unknown) => e);
    assert.ok(unknown instanceof NotFoundError, String(unknown));
    assert.equal(unknown.status, 404);
    assert.match(unknown.message, /^lockcloud answered 404 NOT_FOUND: ./);
    await assert.rejects(sandbox.changeAccount('nobody@example.com', { deleted: true }), NotFoundError);
    const bad = await sandbox.setLock(LOCK_A, { battery: 101 }).catch((e: unknown) => e);
    assert.ok(bad instanceof BadParamsError, String(bad));
    assert.match(bad.message, /battery/);
    await assert.rejects(sandbox.advanceClock(-1), /advance_seconds/);
    await assert.rejects(sandbox.setLock('not-a-uuid', {}), BadParamsError);
    assert.throws(() => sandbox.setLock('', {}), TypeError);
  });
});

describe('sdk: LockcloudSandboxClient against a server without a sandbox (--production)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--production'] });
  });
  after(() => t.close());

  it('every control is NotFoundError saying there is no sandbox', async () => {
    const sandbox = new LockcloudSandboxClient({ baseUrl: t.url });
    for (const call of [
      () => sandbox.getClock(),
      () => sandbox.reset(),
      () => sandbox.setLock(LOCK_A, {}),
      () => sandbox.addLock({ owner: OWNER }),
    ]) {
      const err = await call().catch((e: unknown) => e);
      assert.ok(err instanceof NotFoundError, String(err));
      assert.deepEqual(err.body, { error: 'NOT_FOUND' });
      assert.match(err.message, /no sandbox here \(was the server started with --production\?\)/);
    }
  });
});
