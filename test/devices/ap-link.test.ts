/**
 * A simulated access point's link at the worst moments: its connection dropping while its last
 * words are on the wire (stop() must still end: mqtt.js keeps an unacknowledged QoS 1 message for a
 * next connection that a stopped link never makes), and the access point losing power with its
 * announcements unacknowledged (they will never arrive, so they must not stay counted in flight, or
 * every sandbox settle afterwards waits out its whole timeout). The broker is aedes on a random
 * port, told to cut the connection, or to never acknowledge, when a given message arrives.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Aedes, type Client } from 'aedes';
import { InFlight } from '../../src/adapters/devices/in-flight.ts';
import { AdjustableClock } from '../../src/adapters/system/clock.ts';
import { Topics } from '../../src/device-protocol/topics.ts';
import { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import { AP_HOME, seededDevice, silentLogger } from '../support/devices.ts';
import { LOCK_A, LOCK_B } from '../support/server.ts';

const topics = new Topics('aplink-test/');

describe('a simulated access point whose connection drops', () => {
  let broker: Aedes;
  let server: Server;
  let url: string;
  /**
   * What the broker does with a message from an access point: takes it, cuts the connection, holds
   * it unacknowledged, or takes it and then closes the connection.
   */
  let onPublish: (topic: string) => 'take' | 'cut' | 'hold' | 'take, then close' = () => 'take';

  before(async () => {
    broker = await Aedes.createBroker({
      authorizePublish: (client: Client | null, packet, done) => {
        const what = client ? onPublish(packet.topic) : 'take';
        if (what === 'cut') client?.conn.destroy();
        if (what === 'take' || what === 'take, then close') done(null);
        // Ended, not destroyed: the acknowledgement goes out before the connection closes.
        if (what === 'take, then close') setTimeout(() => client?.conn.end(), 20);
      },
    });
    server = createServer(broker.handle);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    url = `mqtt://127.0.0.1:${address.port}`;
  });
  after(async () => {
    server.close();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
  });

  function accessPoint(inFlight?: InFlight): SimulatedAccessPoint {
    return new SimulatedAccessPoint(AP_HOME, 'a-secret-of-sixteen+', [seededDevice(LOCK_A)], {
      url,
      topics,
      clock: new AdjustableClock(),
      lowBatteryThreshold: 10,
      logger: silentLogger,
      ...(inFlight ? { inFlight } : {}),
    });
  }

  it('stop() ends when the connection drops with its last words unacknowledged', async () => {
    onPublish = () => 'take';
    const ap = accessPoint();
    await ap.start();
    onPublish = (topic) => (topic === topics.status(AP_HOME) ? 'cut' : 'take');
    // Before: never settled (the test's timeout).
    await ap.stop();
    assert.equal(ap.connected, false);
  });

  it('stop() ends when the connection drops while it waits for an earlier message to be acknowledged', async () => {
    onPublish = () => 'take';
    const ap = accessPoint();
    await ap.start();
    // A lock paired now is announced, and that announcement is never acknowledged; the last words
    // are, and then the connection goes: mqtt.js's graceful end waits for the announcement's
    // acknowledgement, which no connection will bring.
    onPublish = (topic) => (topic === topics.status(AP_HOME) ? 'take, then close' : 'hold');
    ap.addLock(seededDevice(LOCK_B));
    // Before: never settled (the test's timeout); a lockcloud's close() hung on it, and the process
    // with it (its broker still listening).
    await ap.stop();
    assert.equal(ap.connected, false);
  });

  it('messages unacknowledged when the access point loses power are no longer counted in flight', async () => {
    const inFlight = new InFlight();
    inFlight.track(AP_HOME);
    // The status is taken (and handled: ended here, as the cloud's gateway would); its locks and
    // their states are never acknowledged.
    onPublish = (topic) => (topic === topics.status(AP_HOME) ? 'take' : 'hold');
    const ap = accessPoint(inFlight);
    await ap.start();
    inFlight.end(AP_HOME);
    ap.kill();
    // Before: the two held messages stayed counted and this waited out its timeout (the test's).
    await inFlight.idle(600_000);
  });
});
