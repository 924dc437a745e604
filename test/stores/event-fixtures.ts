/**
 * What the event log's store contracts share: events and tasks made up for them, and a store with
 * three accounts (owner, guest, stranger) and their locks (dev-a and dev-b the owner's, dev-s the
 * stranger's).
 */
import type { EventQuery, Store } from '../../src/app/ports.ts';
import { type EventDraft, type EventType, formatEventId, type LockEvent } from '../../src/domain/event.ts';
import type { Task } from '../../src/domain/task.ts';
import { aLock, anAccount } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

let counter = 0;
/** An event at `ms`, ids strictly rising in the order made. */
export function event(
  type: EventType,
  accountId: string,
  deviceId: string | null,
  ms = 10_000,
  extra: Partial<EventDraft> = {},
): LockEvent {
  counter++;
  return {
    id: formatEventId(ms, counter, counter.toString(16).padStart(10, '0')),
    occurredAt: ms,
    type,
    accountId,
    deviceId,
    actor: { kind: 'api_key', accountId, keyPrefix: 'lck_abcd' },
    method: type.startsWith('lock.') ? 'api_v3' : null,
    taskId: null,
    data: { n: counter },
    ...extra,
  };
}

export const query = (readerId: string, more: Partial<EventQuery> = {}): EventQuery => ({
  readerId,
  limit: 100,
  order: 'oldest-first',
  ...more,
});

export const processing = (id: string, deviceId: string): Task & { status: 'processing' } => ({
  id,
  accountId: 'owner',
  deviceId,
  command: 'unlock',
  status: 'processing',
  createdAt: 5_000,
  deadline: 20_000,
  origin: { actor: { kind: 'partner', accountId: 'owner', keyPrefix: 'lck_abcd' }, method: 'partner' },
});

/** A fresh store of the factory's with the three accounts and their locks. */
export async function openEventWorld(factory: StoreFactory): Promise<Store> {
  const store = await factory.open();
  for (const id of ['owner', 'guest', 'stranger'])
    await store.accounts.insert(anAccount(id, { createdAt: 1_000 }));
  await store.locks.insert(aLock('dev-a', 'owner', { nickname: 'dev-a' }));
  await store.locks.insert(aLock('dev-b', 'owner', { nickname: 'dev-b' }));
  await store.locks.insert(aLock('dev-s', 'stranger', { nickname: 'dev-s' }));
  return store;
}
