/**
 * Rows for store-level tests: an account and a lock with every field a plain value, so a test names
 * only what it is about.
 */

import type { LockStatus } from '../../src/app/ports.ts';
import type { Account } from '../../src/domain/account.ts';
import { formatEventId, type LockEvent } from '../../src/domain/event.ts';
import { initialHealth, type Lock } from '../../src/domain/lock.ts';
import type { WebhookEndpoint } from '../../src/domain/webhook-endpoint.ts';

/** A verified account with no password (as a social login's), made at `createdAt` 1. */
export function anAccount(id: string, patch: Partial<Account> = {}): Account {
  return {
    id,
    email: `${id}@example.com`,
    passwordHash: null,
    verified: true,
    deletedAt: null,
    passwordChangedAt: null,
    createdAt: 1,
    ...patch,
  };
}

/** A locked, responsive, integrated lock at 90% battery, paired with no known access point. */
export function aLock(deviceId: string, ownerId: string, patch: Partial<Lock> = {}): Lock {
  return {
    ...initialHealth(90),
    deviceId,
    serial: 'S',
    nickname: 'Door',
    ownerId,
    locked: true,
    battery: 90,
    responsive: true,
    integration: true,
    accessPoint: true,
    appOpen: false,
    accessPointId: null,
    createdAt: 1,
    ...patch,
  };
}

/** A status write's fields: the report's four, the health ones as a lock on protocol 1 has them. */
export function aStatus(
  fields: Pick<LockStatus, 'locked' | 'battery' | 'responsive' | 'appOpen'> & Partial<LockStatus>,
): LockStatus {
  const {
    autoLockSeconds: _a,
    batteryLow: _l,
    batteryCritical: _c,
    timeZone: _z,
    ...status
  } = initialHealth(fields.battery);
  return { ...status, ...fields };
}

let eventCounter = 0;

/** A lock event as a device report writes it; each a new id, later than the one before. */
export function aLockEvent(
  accountId: string,
  deviceId: string,
  type: LockEvent['type'] = 'lock.unlocked',
): LockEvent {
  eventCounter++;
  return {
    id: formatEventId(20_000, eventCounter, eventCounter.toString(16).padStart(10, '0')),
    occurredAt: 20_000,
    type,
    accountId,
    deviceId,
    actor: { kind: 'device' },
    method: 'manual',
    taskId: null,
    data: {},
  };
}

/** An enabled webhook endpoint taking every event of its account after `fromSeq`. */
export function anEndpoint(
  id: string,
  accountId: string,
  fromSeq: number,
  patch: Partial<WebhookEndpoint> = {},
): WebhookEndpoint {
  return {
    id,
    accountId,
    url: `https://hooks.example.com/${id}`,
    types: [],
    deviceIds: [],
    retries: true,
    enabled: true,
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    fromSeq,
    createdAt: 1_000,
    ...patch,
  };
}
