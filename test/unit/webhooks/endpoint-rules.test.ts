/** The webhook endpoints' pure rules (src/domain/webhook-endpoint.ts): which events, which inputs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventJson, type LockEvent } from '../../../src/domain/event.ts';
import {
  endpointTakes,
  endpointTypeProblem,
  endpointUrlProblem,
} from '../../../src/domain/webhook-endpoint.ts';
import { anEndpoint } from '../../support/fixtures.ts';

const endpoint = anEndpoint('we_00000000000000000000000000000001', 'acc-1', 10, {
  url: 'https://hooks.example.com/in',
  createdAt: 0,
});

const event = (over: Partial<LockEvent> = {}): LockEvent => ({
  id: 'evt_019ac1f2b4c1000000a1b2c3d4e5',
  type: 'lock.unlocked',
  occurredAt: Date.UTC(2026, 10, 26, 14, 3, 11, 201),
  accountId: 'acc-1',
  deviceId: 'lock-a',
  actor: { kind: 'api_key', accountId: 'acc-1', keyPrefix: 'lck_4tj2Zq' },
  method: 'api_v3',
  taskId: 'task-1',
  data: {},
  ...over,
});

describe('endpointTakes', () => {
  it("takes its own account's events after it was made, by type prefix and lock", () => {
    assert.equal(endpointTakes(endpoint, 11, event()), true);
    assert.equal(endpointTakes(endpoint, 10, event()), false, 'before it was made');
    assert.equal(endpointTakes(endpoint, 11, event({ accountId: 'acc-2' })), false, "another account's log");
    assert.equal(endpointTakes({ ...endpoint, enabled: false }, 11, event()), false, 'disabled');
    const lockOnly = { ...endpoint, types: ['lock.'], deviceIds: ['lock-a'] };
    assert.equal(endpointTakes(lockOnly, 11, event()), true);
    assert.equal(endpointTakes(lockOnly, 11, event({ type: 'command.requested' })), false);
    assert.equal(endpointTakes(lockOnly, 11, event({ deviceId: 'lock-b' })), false);
    assert.equal(endpointTakes(lockOnly, 11, event({ type: 'lock.online', deviceId: null })), false);
    const exact = { ...endpoint, types: ['command.failed', 'api_key.'] };
    assert.equal(endpointTakes(exact, 11, event({ type: 'command.failed' })), true);
    assert.equal(endpointTakes(exact, 11, event({ type: 'api_key.created', deviceId: null })), true);
    assert.equal(endpointTakes(exact, 11, event({ type: 'command.succeeded' })), false);
  });
});

describe('endpoint inputs', () => {
  it('accepts known types and their starts only', () => {
    for (const ok of ['lock.', 'lock.unlocked', 'command.', 'webhook.endpoint_', 'l'])
      assert.equal(endpointTypeProblem(ok), undefined, ok);
    for (const bad of ['nope.', 'Lock.', '', 'lock.unlocked.x', 'a'.repeat(65)])
      assert.ok(endpointTypeProblem(bad), bad);
  });

  it("applies the webhook's URL rules, without placeholders", () => {
    assert.equal(endpointUrlProblem('https://hooks.example.com/in?x=1'), undefined);
    for (const bad of ['', 'ftp://x/', 'https://u:p@x/', 'https://x/{device_id}', 'not a url'])
      assert.ok(endpointUrlProblem(bad), bad);
  });
});

describe('eventJson', () => {
  it('is the event as GET /ext/events lists it, keys in order', () => {
    assert.equal(
      JSON.stringify(eventJson(event())),
      '{"id":"evt_019ac1f2b4c1000000a1b2c3d4e5","type":"lock.unlocked","occurred_at":"2026-11-26T14:03:11.201Z","device_id":"lock-a","actor":{"kind":"api_key","account_id":"acc-1","key_prefix":"lck_4tj2Zq"},"method":"api_v3","task_id":"task-1","data":{}}',
    );
  });
});
