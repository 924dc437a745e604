/**
 * Type tests of the SDK's public types: this file must compile (`npx tsc -p .`); every
 * `@ts-expect-error` line is an assignment or call that must not. The runtime test only keeps
 * node:test from reporting an empty file.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  type ActionResult,
  type Command,
  type CommandResponse,
  DeviceBusyError,
  fieldsOf,
  type Lock,
  LockcloudClient,
  type LockcloudError,
  LockcloudV1Client,
  type LockStatus,
  type SucceededResult,
  type TaskFailureReason,
  type V1ControlType,
  type V1Lock,
  type WebhookPayload,
} from '../../sdk/src/index.ts';

declare const client: LockcloudClient;
declare const v1: LockcloudV1Client;

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

it('the type tests compile (checked by tsc; nothing to run)', () => {
  assert.equal(typeof compileOnly, 'function');
});
