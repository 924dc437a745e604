/**
 * Commands count each task once, in the process whose call ended it: two Commands over one store
 * stand for two processes; a late answer or a second timeout for an ended task counts nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import { Commands } from '../../../src/app/commands.ts';
import { LockQueries } from '../../../src/app/locks.ts';
import type {
  CommandOutcome,
  DeviceGateway,
  DeviceResult,
  Metrics,
  Store,
  WebhookAttemptOutcome,
} from '../../../src/app/ports.ts';
import type { Origin } from '../../../src/domain/event.ts';
import type { LockCommand } from '../../../src/domain/lock.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const ORIGIN: Origin = {
  actor: { kind: 'api_key', accountId: 'acc', keyPrefix: 'lck_test' },
  method: 'api_v3',
};

class CountingMetrics implements Metrics {
  readonly commands: string[] = [];
  commandEnded(command: LockCommand, outcome: CommandOutcome): void {
    this.commands.push(`${command} ${outcome}`);
  }
  webhookAttempted(_outcome: WebhookAttemptOutcome): void {}
}

/** Answers every command with what the test says, when the test says. */
class HeldGateway implements DeviceGateway {
  readonly answers: ((result: DeviceResult) => void)[] = [];
  execute(): Promise<DeviceResult> {
    return new Promise((answer) => this.answers.push(answer));
  }
  listen(): void {}
  configure(): void {}
  async close(): Promise<void> {}
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('Commands count each ended task once, where it ended', () => {
  let dir: string;
  let store: Store;
  let clock: ManualClock;
  let n = 0;
  const build = (gateway: DeviceGateway, metrics: Metrics) =>
    new Commands({
      tasks: store.tasks,
      locks: new LockQueries(store.locks),
      // No device report in these answers: the reports use case is never reached.
      reports: { apply: async () => undefined } as never,
      gateway,
      clock,
      random: { uuid: () => `task-${++n}`, secret: () => 'x' },
      events: new LocalEventBus((e) => {
        throw e;
      }),
      logger: { info() {}, warn() {}, error() {} },
      policy: { commandTimeoutMs: 15_000, lowBatteryThreshold: 10 },
      metrics,
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-metrics-'));
    store = await openSqliteStore(dir);
    clock = new ManualClock();
    await store.accounts.insert({
      id: 'acc',
      email: 'a@example.com',
      passwordHash: null,
      verified: true,
      deletedAt: null,
      passwordChangedAt: null,
      createdAt: 0,
    });
    await store.locks.insert({
      deviceId: 'dev',
      serial: 'S',
      nickname: 'N',
      ownerId: 'acc',
      locked: true,
      battery: 80,
      responsive: true,
      integration: true,
      accessPoint: true,
      appOpen: false,
      accessPointId: 'ap-1',
      createdAt: 0,
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the device answer counts in the process that ended the task; the other process and the late timeout count nothing', async () => {
    const gateway = new HeldGateway();
    const here = new CountingMetrics();
    const there = new CountingMetrics();
    const a = build(gateway, here);
    const b = build(new HeldGateway(), there);
    try {
      const task = await a.send('acc', 'dev', 'unlock', ORIGIN);
      gateway.answers[0]?.({ ok: false, error: 'JAMMED' });
      await settle();
      // The same answer reaching another process (a duplicate), then the deadline passing.
      await b.deviceResult(task.id, 'dev', { ok: true });
      clock.advance(20_000);
      await b.result('acc', task.id);
      await settle();
      assert.deepEqual(here.commands, ['unlock JAMMED']);
      assert.deepEqual(there.commands, []);
    } finally {
      a.stop();
      b.stop();
    }
  });

  it('a task ended by its deadline counts TIMEOUT once; recovery at start counts what it ends', async () => {
    const metrics = new CountingMetrics();
    const commands = build(new HeldGateway(), metrics);
    try {
      await commands.send('acc', 'dev', 'lock', ORIGIN);
      clock.advance(15_000);
      await settle();
      assert.deepEqual(metrics.commands, ['lock TIMEOUT']);
      await commands.send('acc', 'dev', 'sync', ORIGIN);
    } finally {
      commands.stop();
    }
    const restarted = new CountingMetrics();
    assert.equal(await build(new HeldGateway(), restarted).recover(), 1);
    assert.deepEqual(restarted.commands, ['sync TIMEOUT']);
  });
});
