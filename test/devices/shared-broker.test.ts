/**
 * Two deployments on one external broker under different topic prefixes, with access points of the
 * same id (as test files running side by side on the machine's Mosquitto are). Each server's
 * simulated access point puts its topic prefix before its client id, so neither takes over the
 * other's session: without it each connection would end the other's, whose last will tells its
 * server the access point went offline, and commands would end DEVICE_UNREACHABLE.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AP_HOME, mosquittoUp, type Rig, startRig } from '../support/devices.ts';
import { LOCK_A } from '../support/server.ts';

describe('two deployments on one broker, access points of the same id', async () => {
  const skip = (await mosquittoUp()) ? false : 'no Mosquitto on 127.0.0.1:1883';
  let rigs: Rig[] = [];
  before(async () => {
    if (!skip) rigs = [await startRig('mosquitto'), await startRig('mosquitto')];
  });
  after(() => Promise.all(rigs.map((rig) => rig.close())));

  it('carries out both deployments’ commands, each answered by its own access point', { skip }, async () => {
    // Past the access points' reconnect period (1 s): a session taken over would have bounced by now.
    // A fixed wait on purpose: the fault shows through mqtt.js reconnecting after real time, which
    // no sandbox clock drives and no message announces.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let i = 0; i < 10; i++) {
      const results = await Promise.all(
        rigs.map((rig) =>
          rig.t.server.devices.gateway.execute({
            taskId: randomUUID(),
            deviceId: LOCK_A,
            accessPointId: AP_HOME,
            responsive: true,
            command: 'sync',
            deadline: Date.now() + 5000,
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.ok),
        [true, true],
        `round ${i}`,
      );
      // Each answer carries the lock's state and its place in its own access point's count: two
      // simulators with the same id, so two epochs.
      const epochs = results.map((r) => r.mark?.epoch);
      assert.ok(epochs.every((e) => e !== undefined) && epochs[0] !== epochs[1], `round ${i}: ${epochs}`);
    }
  });
});
