/**
 * The relay's plan (src/app/webhooks/relay.ts): which messages a batch of the event log becomes.
 * The API Settings webhook gets its unchanged `lock.state_changed` message for each lock movement
 * after the position it started reading at; each endpoint the events it takes; and each of them
 * has its own backlog bound, past which a message is logged failed, never dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RelayTargets, SequencedEvent } from '../../../src/app/ports.ts';
import { relayPlan } from '../../../src/app/webhooks/relay.ts';
import { openKey, queueFull } from '../../../src/domain/delivery.ts';
import type { LockEvent } from '../../../src/domain/event.ts';
import { aLockEvent, anEndpoint } from '../../support/fixtures.ts';

let n = 0;
function at(
  seq: number,
  type: LockEvent['type'],
  accountId = 'acc',
  deviceId: string | null = 'lock-1',
): SequencedEvent {
  return {
    seq,
    event: { ...aLockEvent(accountId, '', type), id: `evt_${seq}`, occurredAt: 1_000, deviceId },
  };
}

const endpoint = anEndpoint('we_1', 'acc', 0, {
  url: 'https://hooks.example.com/e',
  types: ['lock.'],
  createdAt: 0,
});

const targets = (over: Partial<RelayTargets> = {}): RelayTargets => ({
  endpoints: [],
  webhooks: new Map([
    [
      'acc',
      { accountId: 'acc', url: 'https://h.example.com/{device_id}/{state}', method: 'POST', retries: false },
    ],
  ]),
  open: new Map(),
  webhookFrom: new Map(),
  ...over,
});

const plan = (batch: SequencedEvent[], t: RelayTargets, limit = 10) =>
  relayPlan(batch, t, limit, 5_000, () => `msg_${++n}`);

describe('the relay plan', () => {
  it('gives the webhook the documented message for each movement, and nothing for other events', () => {
    const planned = plan(
      [
        at(1, 'lock.unlocked'),
        at(2, 'command.succeeded'),
        at(3, 'lock.locked'),
        at(4, 'api_key.created', 'acc', null),
      ],
      targets(),
    );
    assert.deepEqual(
      planned.map(({ message, eventId }) => [
        eventId,
        message.event,
        message.url,
        message.body,
        message.endpointId,
      ]),
      [
        [
          'evt_1',
          'lock.state_changed',
          'https://h.example.com/lock-1/unlocked',
          '{"device_id":"lock-1","locked":false,"state":"unlocked"}',
          null,
        ],
        [
          'evt_3',
          'lock.state_changed',
          'https://h.example.com/lock-1/locked',
          '{"device_id":"lock-1","locked":true,"state":"locked"}',
          null,
        ],
      ],
    );
    assert.equal(planned[0]?.message.eventId, null, 'webhook-id stays the message id');
  });

  it('makes no webhook message for the movements logged before it was set up, nor for other accounts', () => {
    const planned = plan(
      [at(4, 'lock.locked'), at(5, 'lock.unlocked'), at(6, 'lock.locked', 'other')],
      targets({ webhookFrom: new Map([['acc', 4]]) }),
    );
    assert.deepEqual(
      planned.map((p) => p.eventId),
      ['evt_5'],
    );
  });

  it('bounds the webhook and each endpoint on its own backlog', () => {
    const planned = plan(
      [at(1, 'lock.unlocked'), at(2, 'lock.locked'), at(3, 'lock.unlocked')],
      targets({ endpoints: [endpoint], open: new Map([[openKey('acc', null), 1]]) }),
      2,
    );
    const webhook = planned.filter((p) => p.message.endpointId === null).map((p) => p.message);
    const toEndpoint = planned.filter((p) => p.message.endpointId === 'we_1').map((p) => p.message);
    assert.deepEqual(
      webhook.map((m) => [m.status, m.error]),
      [
        ['pending', null],
        ['failed', queueFull(2)],
        ['failed', queueFull(2)],
      ],
      'one was waiting already: room for one more',
    );
    assert.deepEqual(
      toEndpoint.map((m) => [m.status, m.nextAttemptAt]),
      [
        ['pending', 5_000],
        ['pending', 5_000],
        ['failed', null],
      ],
      "the webhook's backlog does not refuse the endpoint's messages",
    );
  });
});
