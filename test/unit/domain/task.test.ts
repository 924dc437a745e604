import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  busyWaitSeconds,
  isExpired,
  isTaskFailure,
  TASK_FAILURES,
  TASK_RETENTION_MS,
  type Task,
} from '../../../src/domain/task.ts';

const base = {
  id: 'task-1',
  accountId: 'account-1',
  deviceId: '00000000-0000-4000-8000-000000000001',
  command: 'lock' as const,
  createdAt: 1_000,
  deadline: 16_000,
};
const processing: Task = { ...base, status: 'processing' };
const ended = (endedAt: number): Task => ({
  ...base,
  status: 'terminated',
  outcome: { successful: true },
  endedAt,
});

describe('busyWaitSeconds', () => {
  it('rounds a partial second up', () => {
    assert.equal(busyWaitSeconds(11_500, 10_000), 2);
    assert.equal(busyWaitSeconds(10_001, 10_000), 1);
    assert.equal(busyWaitSeconds(24_001, 10_000), 15);
  });

  it('keeps whole seconds as they are', () => {
    assert.equal(busyWaitSeconds(11_000, 10_000), 1);
    assert.equal(busyWaitSeconds(25_000, 10_000), 15);
  });

  it('is at least 1, also at or past the deadline', () => {
    assert.equal(busyWaitSeconds(10_000, 10_000), 1);
    assert.equal(busyWaitSeconds(9_000, 10_000), 1);
    assert.equal(busyWaitSeconds(0, Number.MAX_SAFE_INTEGER), 1);
  });

  it('is always a whole number', () => {
    for (let ms = 0; ms < 3_000; ms += 37) assert.ok(Number.isInteger(busyWaitSeconds(ms, 0)));
  });
});

describe('isExpired', () => {
  it('keeps terminated tasks at least 24 h', () => {
    assert.ok(TASK_RETENTION_MS >= 24 * 60 * 60 * 1000);
    assert.equal(isExpired(ended(0), 24 * 60 * 60 * 1000), false);
  });

  it('expires a terminated task once the retention has passed, not at it', () => {
    assert.equal(isExpired(ended(5_000), 5_000 + TASK_RETENTION_MS), false);
    assert.equal(isExpired(ended(5_000), 5_000 + TASK_RETENTION_MS + 1), true);
  });

  it('never expires a processing task', () => {
    assert.equal(isExpired(processing, Number.MAX_SAFE_INTEGER), false);
  });
});

describe('isTaskFailure', () => {
  it('accepts exactly the documented reasons', () => {
    assert.deepEqual([...TASK_FAILURES].sort(), [
      'DEVICE_IS_BUSY',
      'DEVICE_UNREACHABLE',
      'INTERNAL_ERROR',
      'JAMMED',
      'LOW_BATTERY',
      'TIMEOUT',
    ]);
    for (const reason of TASK_FAILURES) assert.equal(isTaskFailure(reason), true);
    for (const bad of ['timeout', 'BUSY', '', null, 3]) assert.equal(isTaskFailure(bad), false);
  });
});
