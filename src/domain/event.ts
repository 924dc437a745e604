/**
 * The event log (docs/events.md): every change to a lock or an account, with who made it and how.
 * An event is written in the same transaction as its change, so an acknowledged change never lacks
 * its event. Pure rules here: ids, the types, who sees what; no I/O.
 */
import { type BatteryState, batteryEvent, type DoorState } from './health.ts';
import type { LockCommand } from './lock.ts';
import type { TaskFailure } from './task.ts';

export type ActorKind =
  | 'account'
  | 'api_key'
  | 'v1_token'
  | 'partner'
  | 'dashboard_session'
  | 'device'
  | 'system'
  | 'grant'
  | 'oauth_app';
export const ACTOR_KINDS: readonly ActorKind[] = [
  'account',
  'api_key',
  'v1_token',
  'partner',
  'dashboard_session',
  'device',
  'system',
  'grant',
  'oauth_app',
];

/** Who made a change: never a secret, at most a key's display prefix (lck_4tj2…). */
export interface Actor {
  readonly kind: ActorKind;
  readonly accountId?: string;
  /** For api_key and partner: the key's display prefix. */
  readonly keyPrefix?: string;
  /** For grant: the grant a guest acted through (accountId is the guest's). */
  readonly grantId?: string;
  /**
   * For oauth_app: the app (its client id) and its name when it acted; accountId is the user it
   * acted for. The name is kept as it was then: an app renamed later does not rewrite the log.
   */
  readonly appId?: string;
  readonly appName?: string;
}

/** A guest acting on a lock through a grant (issue 23): every use names the grant and the guest. */
export function grantActor(grantId: string, guestId: string): Actor {
  return { kind: 'grant', grantId, accountId: guestId };
}

/** A third-party app acting for a user with an OAuth access token: the app by id and name, and the user. */
export function oauthAppActor(appId: string, appName: string, accountId: string): Actor {
  return { kind: 'oauth_app', appId, appName, accountId };
}

/** How a lock moved or a command came. */
export type LockMethod = 'api_v3' | 'api_v1' | 'api_ext' | 'partner' | 'dashboard' | 'manual' | 'auto';
export const LOCK_METHODS: readonly LockMethod[] = [
  'api_v3',
  'api_v1',
  'api_ext',
  'partner',
  'dashboard',
  'manual',
  'auto',
];

/** Where a command came from: remembered on its task, so the movement it causes is attributed. */
export interface Origin {
  readonly actor: Actor;
  readonly method: LockMethod;
}

export const EVENT_TYPES = [
  'lock.locked',
  'lock.unlocked',
  'lock.online',
  'lock.offline',
  'lock.battery_low',
  'lock.battery_critical',
  'lock.battery_ok',
  'lock.jammed',
  'lock.unjammed',
  'lock.door_opened',
  'lock.door_closed',
  'lock.auto_locked',
  'command.requested',
  'command.succeeded',
  'command.failed',
  'access_point.online',
  'access_point.offline',
  'share.created',
  'share.removed',
  'grant.invited',
  'grant.accepted',
  'grant.declined',
  'grant.revoked',
  'grant.changed',
  'grant.used',
  'api_key.created',
  'api_key.deleted',
  'oauth_app.authorized',
  'oauth_app.revoked',
  'webhook.updated',
  'webhook.removed',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_removed',
  'webhook.endpoint_disabled',
  'account.password_changed',
  'account.login_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What a guest (an account a lock is shared with) may read of that lock: its movements, reach,
 * battery, health (jammed, door, auto-lock) and commands; never the owner's account, keys, shares or
 * settings.
 */
export const GUEST_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter(
  (type) => type.startsWith('lock.') || type.startsWith('command.'),
);

export interface LockEvent {
  /** Unique and sortable by time: `evt_` + 12 hex digits of epoch ms + 6 of a counter + 10 random. */
  readonly id: string;
  readonly type: EventType;
  readonly occurredAt: number;
  /** Whose log it is in: the lock's owner, or the account changed. */
  readonly accountId: string;
  readonly deviceId: string | null;
  readonly actor: Actor;
  readonly method: LockMethod | null;
  readonly taskId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/** An event before its id and time are given (app/events.ts stamps it). */
export type EventDraft = Omit<LockEvent, 'id' | 'occurredAt'>;

export const EVENT_ID_PREFIX = 'evt_';
const TIME_DIGITS = 12;
const COUNTER_DIGITS = 6;

/** The time part of an id: every id made at `ms` or later sorts at or after this string. */
export function eventIdFloor(ms: number): string {
  return `${EVENT_ID_PREFIX}${Math.max(0, Math.floor(ms)).toString(16).padStart(TIME_DIGITS, '0')}`;
}

/** An event id from its time, a per-process counter within that millisecond and random hex. */
export function formatEventId(ms: number, counter: number, randomHex: string): string {
  const count = (counter % 16 ** COUNTER_DIGITS).toString(16).padStart(COUNTER_DIGITS, '0');
  return `${eventIdFloor(ms)}${count}${randomHex.slice(0, 10).padEnd(10, '0')}`;
}

const EVENT_ID = /^evt_[0-9a-f]{28}$/;
export function isEventId(value: string): boolean {
  return EVENT_ID.test(value);
}

/** The epoch ms an id was made at. */
export function eventIdTime(id: string): number {
  return Number.parseInt(id.slice(EVENT_ID_PREFIX.length, EVENT_ID_PREFIX.length + TIME_DIGITS), 16);
}

/** What of a lock its status events are made from (a Lock is one). */
export interface StatusSnapshot {
  readonly locked: boolean;
  readonly responsive: boolean;
  readonly battery: number;
  /** Stored, with hysteresis (health.ts, batteryStateAfter): `after`'s is the one just reached. */
  readonly batteryState: BatteryState;
  /** The owner's thresholds, named in the battery events. */
  readonly batteryLow: number;
  readonly batteryCritical: number;
  readonly jammed: boolean;
  readonly door: DoorState | null;
  /** Whether lock.offline was written for the outage (health.ts, Reach). */
  readonly offlineAnnounced: boolean;
}

/** A lock's status before and after a report, and why it moved when no command moved it. */
export interface StatusChange {
  readonly before: StatusSnapshot;
  readonly after: StatusSnapshot;
  /** The report's cause of a movement: `auto` is the device's own auto-lock; absent: by hand. */
  readonly cause?: 'manual' | 'auto' | undefined;
  /** For an auto relock: the delay it came after (the device's reported one, or the setting). */
  readonly autoLockSeconds?: number | undefined;
}

/** A running command on the lock, as far as attribution needs it. */
export interface RunningCommand {
  readonly taskId: string;
  readonly command: LockCommand;
  readonly origin: Origin;
}

export const DEVICE_ACTOR: Actor = { kind: 'device' };
export const SYSTEM_ACTOR: Actor = { kind: 'system' };

/**
 * The events a report's change is, in the order they are told: back in reach, jammed or freed, the
 * door, the movement, the battery.
 *
 * A movement is the running command's when it is the movement that command asks for; any other
 * (no command, a sync that finds the lock moved, the opposite of the command) was made at the lock:
 * by hand (`manual`), or a relock by the device's auto-lock (`cause: 'auto'`: lock.locked with method
 * `auto`, then lock.auto_locked). A lock locked with its door open is locked all the same (the bolt
 * moves); its lock.locked says `{ door: 'open' }`.
 *
 * lock.offline is not among them: it is said only once the lock stayed out of reach for the grace
 * period (offlineEvent, health.ts offlineDue); lock.online only after an announced lock.offline.
 */
export function statusEvents(
  ownerId: string,
  deviceId: string,
  change: StatusChange,
  running: RunningCommand | undefined,
): EventDraft[] {
  const drafts: EventDraft[] = [];
  const base = { accountId: ownerId, deviceId, taskId: null, method: null, actor: DEVICE_ACTOR };
  const { before, after } = change;
  if (!before.responsive && after.responsive && before.offlineAnnounced) {
    drafts.push({ ...base, type: 'lock.online', data: {} });
  }
  if (before.jammed !== after.jammed) {
    drafts.push({ ...base, type: after.jammed ? 'lock.jammed' : 'lock.unjammed', data: {} });
  }
  // A sensor appearing already closed, or going away, is no news of the door.
  if (after.door === 'open' && before.door !== 'open') {
    drafts.push({ ...base, type: 'lock.door_opened', data: {} });
  } else if (after.door === 'closed' && before.door === 'open') {
    drafts.push({ ...base, type: 'lock.door_closed', data: {} });
  }
  if (before.locked !== after.locked) {
    const asked = running && running.command === (after.locked ? 'lock' : 'unlock') ? running : undefined;
    // Auto-lock only ever locks: an unlock said to be `auto` was made by hand all the same.
    const auto = !asked && after.locked && change.cause === 'auto';
    drafts.push({
      ...base,
      type: after.locked ? 'lock.locked' : 'lock.unlocked',
      actor: asked ? asked.origin.actor : DEVICE_ACTOR,
      method: asked ? asked.origin.method : auto ? 'auto' : 'manual',
      taskId: asked ? asked.taskId : null,
      data: after.locked && after.door === 'open' ? { door: 'open' } : {},
    });
    if (auto) {
      const data = change.autoLockSeconds === undefined ? {} : { after_seconds: change.autoLockSeconds };
      drafts.push({ ...base, type: 'lock.auto_locked', data });
    }
  }
  const battery = batteryEvent(before.batteryState, after.batteryState);
  if (battery) {
    const threshold = battery === 'lock.battery_critical' ? after.batteryCritical : after.batteryLow;
    drafts.push({ ...base, type: battery, data: { battery: after.battery, threshold } });
  }
  return drafts;
}

/** lock.offline, for a lock out of reach for the whole grace period (the offline sweeper's). */
export function offlineEvent(ownerId: string, deviceId: string): EventDraft {
  return {
    type: 'lock.offline',
    accountId: ownerId,
    deviceId,
    actor: DEVICE_ACTOR,
    method: null,
    taskId: null,
    data: {},
  };
}

interface CommandTask {
  readonly id: string;
  readonly accountId: string;
  readonly deviceId: string;
  readonly command: LockCommand;
  /** Absent for a task from before the event log: its account is all that is known. */
  readonly origin?: Origin | undefined;
}

/** command.requested, for a task just created. Only a lock's owner sends commands: its log. */
export function commandRequestedEvent(task: CommandTask): EventDraft {
  return {
    type: 'command.requested',
    accountId: task.accountId,
    deviceId: task.deviceId,
    actor: task.origin?.actor ?? { kind: 'account', accountId: task.accountId },
    method: task.origin?.method ?? null,
    taskId: task.id,
    data: { command: task.command },
  };
}

/** command.succeeded or command.failed, for a task that has just ended. */
export function commandEndedEvent(
  task: CommandTask,
  outcome: { readonly successful: true } | { readonly successful: false; readonly error: TaskFailure },
): EventDraft {
  return {
    ...commandRequestedEvent(task),
    type: outcome.successful ? 'command.succeeded' : 'command.failed',
    data: outcome.successful ? { command: task.command } : { command: task.command, reason: outcome.error },
  };
}

/**
 * The event as `reader` may see it. A guest sees lock events only (GUEST_EVENT_TYPES, filtered by the
 * query), and of the owner's side no more than the actor's kind: the owner's account id, key prefix
 * and task ids (the owner's to read, with the owner's key) are left out.
 */
export function redactFor(event: LockEvent, readerId: string): LockEvent {
  return event.accountId === readerId ? event : guestView(event);
}

/** What every guest of the lock sees of an owner's event: the same for each of them (redactFor). */
export function guestView(event: LockEvent): LockEvent {
  return { ...event, actor: { kind: event.actor.kind }, taskId: null };
}

/** A signed-in dashboard user (sessions are not named in the log: they are secrets). */
export function sessionActor(accountId: string): Actor {
  return { kind: 'dashboard_session', accountId };
}

/** An event of the account itself (no lock): a key, the webhook, the password, a failed login. */
export function accountEvent(
  type: EventType,
  accountId: string,
  actor: Actor,
  data: Readonly<Record<string, unknown>> = {},
): EventDraft {
  return { type, accountId, deviceId: null, actor, method: null, taskId: null, data };
}

/** A share made or ended: the owner's log (a guest never reads share events). */
export function shareEvent(
  type: 'share.created' | 'share.removed',
  ownerId: string,
  deviceId: string,
  guestId: string,
  actor: Actor,
): EventDraft {
  return {
    type,
    accountId: ownerId,
    deviceId,
    actor,
    method: null,
    taskId: null,
    data: { account_id: guestId },
  };
}

/** The event as GET /ext/events lists it (docs/events.md): the live stream's `data` and a webhook endpoint's message body. */
export function eventJson(e: LockEvent) {
  return {
    id: e.id,
    type: e.type,
    occurred_at: new Date(e.occurredAt).toISOString(),
    device_id: e.deviceId,
    actor: {
      kind: e.actor.kind,
      ...(e.actor.accountId === undefined ? {} : { account_id: e.actor.accountId }),
      ...(e.actor.keyPrefix === undefined ? {} : { key_prefix: e.actor.keyPrefix }),
      ...(e.actor.grantId === undefined ? {} : { grant_id: e.actor.grantId }),
      ...(e.actor.appId === undefined ? {} : { app_id: e.actor.appId }),
      ...(e.actor.appName === undefined ? {} : { app_name: e.actor.appName }),
    },
    method: e.method,
    task_id: e.taskId,
    data: e.data,
  };
}
