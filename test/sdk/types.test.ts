/**
 * Type tests of the SDK's public types: this file must compile (`npx tsc -p .`); every
 * `@ts-expect-error` line is an assignment or call that must not. The runtime test only keeps
 * node:test from reporting an empty file.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  type ActionResult,
  authorizationUrl,
  type BatteryState,
  type Command,
  type CommandResponse,
  type ConnectionError,
  type DeliveryStatus,
  DeviceBusyError,
  type DoorState,
  exchangeCode,
  type Lock,
  LockcloudClient,
  type LockcloudError,
  LockcloudSandboxClient,
  LockcloudV1Client,
  type LockHealth,
  type LockRole,
  type LockSettings,
  type LockStatus,
  type OAuthError,
  type OAuthScope,
  type OAuthTokens,
  RequestTimeoutError,
  refreshToken,
  type SandboxFailure,
  type SandboxLockState,
  type SucceededResult,
  type TaskFailureReason,
  type V1ControlType,
  type V1Lock,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookMethod,
  type WebhookPayload,
} from '../../sdk/src/index.ts';
import type { LockDetail } from '../../src/app/lock-details.ts';
import type {
  DeliveryStatus as ServerDeliveryStatus,
  WebhookEvent as ServerWebhookEvent,
} from '../../src/domain/delivery.ts';
import type {
  BatteryState as ServerBatteryState,
  DoorState as ServerDoorState,
} from '../../src/domain/lock.ts';
import type { TaskFailure } from '../../src/domain/task.ts';
import type { WebhookMethod as ServerWebhookMethod } from '../../src/domain/webhook.ts';
import { fieldsOf } from './fields.ts';

declare const client: LockcloudClient;
declare const v1: LockcloudV1Client;
declare const sandbox: LockcloudSandboxClient;

/** true when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// The SDK's unions are the server's own (the OpenAPI document only says `string` for these).
const sameStatus: Equal<DeliveryStatus, ServerDeliveryStatus> = true;
const sameEvent: Equal<WebhookEvent, ServerWebhookEvent> = true;
const sameMethod: Equal<WebhookMethod, ServerWebhookMethod> = true;
const sameFailure: Equal<TaskFailureReason, TaskFailure> = true;
const sameBattery: Equal<BatteryState, ServerBatteryState> = true;
const sameDoor: Equal<DoorState, ServerDoorState> = true;
const sameRole: Equal<LockRole, LockDetail['role']> = true;
void [sameStatus, sameEvent, sameMethod, sameFailure, sameBattery, sameDoor, sameRole];

async function compileOnlyLocks(): Promise<void> {
  const { locks } = await client.locks.list();
  const lock: LockHealth = await client.locks.get(locks[0]?.device_id ?? '');
  const state: BatteryState = lock.battery_state;
  const door: DoorState | null = lock.door;
  const seen: string | null = lock.last_seen_at;
  // The owner's fields are left out of a guest's answer: optional, and the access point nullable.
  const seconds: number | undefined = lock.auto_lock_seconds;
  const signal: number | null | undefined = lock.access_point?.signal;
  const settings: LockSettings = {
    nickname: 'Hall',
    auto_lock_seconds: 0,
    battery_low: 30,
    battery_critical: 15,
  };
  const changed: LockHealth = await client.locks.update(lock.device_id, settings);
  void [state, door, seen, seconds, signal, changed];
  // @ts-expect-error the owner's fields may be absent (a guest's answer)
  const always: number = lock.battery_low;
  // @ts-expect-error door is open, closed or null
  const ajar: LockHealth['door'] = 'ajar';
  // @ts-expect-error settings are snake_case, as the API's
  await client.locks.update('id', { autoLockSeconds: 30 });
  // @ts-expect-error update needs the settings
  await client.locks.update('id');
  // @ts-expect-error the role is owner or guest
  const admin: LockRole = 'admin';
  void [always, ajar, admin];
}

async function compileOnlyExtAndSandbox(): Promise<void> {
  const hook = await client.webhook.set({ url: 'http://x/{device_id}', method: 'GET', retries: true });
  const secret: string | undefined = hook.secret;
  const method: WebhookMethod = (await client.webhook.get()).method;
  const deliveries: WebhookDelivery[] = await client.webhook.deliveries({ limit: 5 });
  const status: DeliveryStatus | undefined = deliveries[0]?.status;
  const resent: string = (await client.webhook.resend(deliveries[0]?.id ?? '')).delivery_id;
  const rotated: string = (await client.webhook.rotateSecret()).secret;
  const tested: string = (await client.webhook.test()).delivery_id;
  const removed: Promise<void> = client.webhook.delete();
  void [secret, method, status, resent, rotated, tested, removed];
  // @ts-expect-error the method is GET or POST
  await client.webhook.set({ url: 'http://x', method: 'PUT' });
  // @ts-expect-error the url is required
  await client.webhook.set({ retries: true });

  const state: SandboxLockState = await sandbox.setLock('id', { battery: 5, fail_next: 'JAMMED' });
  const planned: SandboxFailure = 'TIMEOUT';
  const failure: TaskFailureReason | null = (await sandbox.setLock('id', { fail_next: planned })).fail_next;
  await sandbox.setLock('id', { fail_next: null });
  const epoch: number = (await sandbox.advanceClock(60)).epoch_ms;
  await sandbox.changeAccount('a@b.c', { password: 'x' });
  await sandbox.changeAccount('a@b.c', { deleted: true });
  const none: Promise<void> = sandbox.reset();
  const text: string | undefined = (await sandbox.mailbox('a@b.c'))[0]?.text;
  void [state, failure, epoch, none, text];
  // @ts-expect-error LOW_BATTERY is not a failure the sandbox plans (set `battery` instead)
  await sandbox.setLock('id', { fail_next: 'LOW_BATTERY' });
  // @ts-expect-error a change of an account names a password or deleted: true
  await sandbox.changeAccount('a@b.c', {});
  // @ts-expect-error an account is deleted with `true`, not undone with `false`
  await sandbox.changeAccount('a@b.c', { deleted: false });
  // @ts-expect-error the sandbox never asks to wait: no retry option
  new LockcloudSandboxClient({ baseUrl: 'http://x', retry: true });
  // @ts-expect-error the sandbox takes no key
  new LockcloudSandboxClient({ baseUrl: 'http://x', apiKey: 'k' });

  const err: unknown = undefined;
  if (err instanceof RequestTimeoutError) {
    const timeoutMs: number = err.timeoutMs;
    const connection: ConnectionError = err;
    const code: string | undefined = connection.code;
    const url: string = connection.url;
    void [timeoutMs, code, url];
  }
  new LockcloudClient({ baseUrl: 'http://x', apiKey: 'k', timeoutMs: 5000 });
  // @ts-expect-error timeoutMs is a number of milliseconds
  new LockcloudClient({ baseUrl: 'http://x', apiKey: 'k', timeoutMs: '5s' });
}

async function compileOnly(): Promise<void> {
  const locks: Lock[] = await client.listLocks();
  const status: LockStatus = await client.getLock(locks[0]?.device_id ?? '');
  const locked: boolean = status.locked;
  const accepted: CommandResponse = await client.unlock('id');
  const done: SucceededResult = await client.waitForTask(accepted.task_id, { timeoutMs: 1, intervalMs: 1 });
  const yes: true = done.successful;
  await client.sendCommand('id', 'sync');
  await client.partnerAutomation({ command: 'lock', deviceId: 'id' });
  const v1Locks: V1Lock[] = await v1.listLocks();
  const unlocked: boolean = v1Locks[0]?.is_unlocked ?? false;
  const nothing: Promise<void> = v1.control('id', 'unlock');
  void [locked, yes, unlocked, nothing];

  const result: ActionResult = await client.actionResult('task');
  if (result.status === 'terminated' && !result.successful) {
    const reason: TaskFailureReason = result.error;
    void reason;
  }
  // @ts-expect-error a processing result has no `successful`
  if (result.status === 'processing') void result.successful;
  // @ts-expect-error `error` is only on a failed result
  void result.error;

  // @ts-expect-error not a command
  await client.sendCommand('id', 'open');
  // @ts-expect-error the partner endpoint does not take sync
  await client.partnerAutomation({ command: 'sync', deviceId: 'id' });
  // @ts-expect-error v1 control is lock or unlock
  await v1.control('id', 'sync');
  // @ts-expect-error getLock needs an id
  await client.getLock();
  // @ts-expect-error the client needs an API key
  new LockcloudClient({ baseUrl: 'http://x' });
  // @ts-expect-error the v1 client needs a token
  new LockcloudV1Client({ baseUrl: 'http://x' });
  // @ts-expect-error login needs a password
  await LockcloudV1Client.login('http://x', 'a@b.c');
  // @ts-expect-error `battery` is a number
  const badStatus: LockStatus = { locked: true, battery: '50', responsive: true };
  // @ts-expect-error `state` is locked or unlocked
  const badPayload: WebhookPayload = { device_id: 'x', locked: true, state: 'open' };
  // @ts-expect-error a succeeded result cannot carry successful: false
  const badDone: SucceededResult = { status: 'terminated', successful: false };
  void [badStatus, badPayload, badDone];

  const command: Command = 'sync';
  // @ts-expect-error sync is not a v1 control type
  const control: V1ControlType = command;
  void control;

  // the field lists must name every field of their type, and only those
  fieldsOf<Lock>()(['device_id', 'serial', 'nickname'], ['device_id', 'serial', 'nickname']);
  // @ts-expect-error `nickname` is missing
  fieldsOf<Lock>()(['device_id', 'serial'], ['device_id', 'serial', 'nickname']);
  // @ts-expect-error `color` is not a field of Lock
  fieldsOf<Lock>()(['device_id', 'serial', 'nickname', 'color'], ['device_id', 'serial', 'nickname']);
  // @ts-expect-error `successful` is not required in an action result
  fieldsOf<ActionResult>()(['status', 'successful', 'error'], ['status', 'successful']);

  const err: unknown = undefined;
  if (err instanceof DeviceBusyError) {
    const wait: number | undefined = err.waitSeconds;
    const base: LockcloudError = err;
    const code: string = err.code;
    void [wait, base, code];
  }
}

async function compileOnlyOAuth(): Promise<void> {
  const baseUrl = 'http://x';
  // An access token where an API key goes, with or without a refresher; never both credentials.
  new LockcloudClient({ baseUrl, accessToken: 'lco_x' });
  new LockcloudClient({ baseUrl, accessToken: 'lco_x', refreshAccessToken: async () => 'lco_y' });
  // @ts-expect-error an API key or an access token, not both
  new LockcloudClient({ baseUrl, apiKey: 'k', accessToken: 'lco_x' });
  // @ts-expect-error a refresher goes with an access token
  new LockcloudClient({ baseUrl, apiKey: 'k', refreshAccessToken: async () => 'lco_y' });
  // @ts-expect-error the refresher resolves to the new token, a string
  new LockcloudClient({ baseUrl, accessToken: 'lco_x', refreshAccessToken: async () => 1 });

  const scopes: OAuthScope[] = ['locks:read', 'offline_access'];
  const url: string = authorizationUrl({
    baseUrl,
    clientId: 'a',
    redirectUri: 'r',
    scopes,
    state: 's',
    codeChallenge: 'c',
  });
  // @ts-expect-error not a scope
  const wrongScopes: OAuthScope[] = ['locks:write'];
  // @ts-expect-error the PKCE verifier is required
  await exchangeCode({ baseUrl, clientId: 'a', code: 'c', redirectUri: 'r' });
  const tokens: OAuthTokens = await refreshToken({ baseUrl, clientId: 'a', refreshToken: 'lcr_x' });
  const access: string = tokens.access_token;
  const err: unknown = undefined;
  if ((err as OAuthError | undefined)?.error === 'invalid_grant') {
    const e = err as OAuthError;
    const description: string | undefined = e.errorDescription;
    const base: LockcloudError = e;
    void [description, base];
  }
  void [url, access, wrongScopes];
}

it('the type tests compile (checked by tsc; nothing to run)', () => {
  assert.equal(typeof compileOnlyOAuth, 'function');
  assert.equal(typeof compileOnly, 'function');
  assert.equal(typeof compileOnlyExtAndSandbox, 'function');
  assert.equal(typeof compileOnlyLocks, 'function');
});
