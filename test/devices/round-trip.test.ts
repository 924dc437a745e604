/**
 * A command's round trip through a real broker: the server publishes it, the simulated access point
 * (run by the server, over MQTT like any device) carries it out and answers, the task ends and the
 * status follows. Against the embedded broker and the machine's Mosquitto. Round-trip times are
 * reported (t.diagnostic), never asserted.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { control, login } from '../http/v1/helpers.ts';
import {
  AP_HOME,
  type BrokerKind,
  lockStatus,
  mosquittoUp,
  type Rig,
  SUCCESS,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { LOCK_A, OWNER, startTask } from '../support/server.ts';

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(2)} ms`;

for (const kind of ['embedded', 'mosquitto'] as const satisfies readonly BrokerKind[]) {
  describe(`a command round trip (${kind} broker)`, async () => {
    const skip = kind === 'mosquitto' && !(await mosquittoUp()) ? 'no Mosquitto on 127.0.0.1:1883' : false;
    let rig: Rig;
    before(async () => {
      if (!skip) rig = await startRig(kind);
    });
    after(() => (skip ? undefined : rig.close()));

    it('v3 unlock: the task ends successful and the status changes', { skip }, async (c) => {
      const { t } = rig;
      assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
      const started = performance.now();
      const taskId = await startTask(t, LOCK_A, 'unlock');
      assert.deepEqual(await taskEnd(t, taskId), SUCCESS);
      c.diagnostic(`${kind}: v3 unlock to terminated, polled over HTTP: ${ms(performance.now() - started)}`);
      assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    });

    it('v1 control answers 204 once the lock has confirmed', { skip }, async (c) => {
      const { t } = rig;
      const token = await login(t, OWNER);
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const type = i % 2 === 0 ? 'lock' : 'unlock';
        const started = performance.now();
        const res = await control(t, token, LOCK_A, type);
        times.push(performance.now() - started);
        assert.equal(res.status, 204, `${type} #${i}: ${await res.text()}`);
        assert.equal((await lockStatus(t, LOCK_A)).locked, type === 'lock');
      }
      c.diagnostic(`${kind}: v1 control (HTTP + broker round trip), median of 10: ${ms(median(times))}`);
    });

    it('the gateway alone: publish a command, the access point answers (median of 30 syncs)', {
      skip,
    }, async (c) => {
      const { gateway } = rig.t.server.devices;
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        const result = await gateway.execute({
          taskId: randomUUID(),
          deviceId: LOCK_A,
          accessPointId: AP_HOME,
          responsive: true,
          command: 'sync',
          deadline: Date.now() + 5000,
        });
        times.push(performance.now() - started);
        assert.equal(result.ok, true);
        // The lock's state comes with the answer, for the command to write with the task's end.
        assert.equal(typeof result.report?.locked, 'boolean');
        assert.equal(result.mark?.apId, AP_HOME);
      }
      const sorted = [...times].sort((a, b) => a - b);
      c.diagnostic(
        `${kind}: broker round trip (cmd -> ack): median ${ms(median(times))}, max ${ms(sorted.at(-1) ?? NaN)}`,
      );
    });
  });
}
