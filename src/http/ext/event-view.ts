import type { LockEvent } from '../../domain/event.ts';

/** An event as GET /ext/events lists it (docs/events.md). */
export const eventView = (e: LockEvent) => ({
  id: e.id,
  type: e.type,
  occurred_at: new Date(e.occurredAt).toISOString(),
  device_id: e.deviceId,
  actor: {
    kind: e.actor.kind,
    ...(e.actor.accountId === undefined ? {} : { account_id: e.actor.accountId }),
    ...(e.actor.keyPrefix === undefined ? {} : { key_prefix: e.actor.keyPrefix }),
  },
  method: e.method,
  task_id: e.taskId,
  data: e.data,
});
