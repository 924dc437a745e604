/**
 * The gateway handles at most HANDLING_LIMIT device messages at once and takes no further packet off
 * its connection meanwhile (admission.ts): a storm of messages waits in the broker and the socket,
 * not as half-done handlers in the server's heap. The broker is a bare aedes in this process, and
 * the listener holds every report until the test lets it go.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAsync, type MqttClient } from 'mqtt';
import { Admission } from '../../src/adapters/devices/mqtt/admission.ts';
import { CLOSE_DRAIN_MS, HANDLING_LIMIT, MqttGateway } from '../../src/adapters/devices/mqtt/gateway.ts';
import type { DeviceListener } from '../../src/app/ports/devices.ts';
import { Topics } from '../../src/device-protocol/topics.ts';
import { type BareBroker, startBareBroker } from '../support/bare-broker.ts';
import { eventually } from '../support/eventually.ts';
import { ManualClock } from '../support/manual-clock.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const apId = (i: number): string => `a0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const LOCK = 'b0000000-0000-4000-8000-0000000000e1';
const STATE = JSON.stringify({
  v: 1,
  seq: 1,
  epoch: 'e',
  locked: true,
  battery: 90,
  reachable: true,
  app_open: false,
});

/** `n` turns of the event loop: enough for a socket's waiting bytes to be read and parsed. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('Admission', () => {
  it('lets the reader on below the limit, holds it at the limit, and lets it on once one ends', () => {
    const admission = new Admission(2);
    const let_on: string[] = [];
    admission.begin();
    admission.admit(() => let_on.push('first'));
    admission.begin();
    admission.admit(() => let_on.push('second'));
    assert.deepEqual(let_on, ['first'], 'two being handled: the reader waits');
    admission.end();
    assert.deepEqual(let_on, ['first', 'second']);
    assert.equal(admission.size, 1);
    admission.end();
    assert.equal(admission.size, 0);
  });

  it('once closed, lets the reader on no more and says when the last message is done', async () => {
    const admission = new Admission(2);
    assert.equal(await Promise.race([admission.close(), 'waits']), undefined, 'nothing handled: at once');

    const again = new Admission(2);
    again.begin();
    again.begin();
    let closed = false;
    const closing = again.close().then(() => {
      closed = true;
    });
    const let_on: string[] = [];
    again.admit(() => let_on.push('after close'));
    again.end();
    await turns(2);
    assert.equal(closed, false, 'one still being handled');
    again.end();
    await closing;
    assert.deepEqual(let_on, [], 'below the limit, the reader waits all the same');
  });
});

/** A listener whose lock reports wait until the test lets them go: a store that does not answer. */
class HeldReports {
  started = 0;
  handled = 0;
  most = 0;
  private handling = 0;
  private open = false;
  private readonly held: (() => void)[] = [];

  readonly listener: DeviceListener = {
    accessPointStatus: async () => undefined,
    pairedLocks: async () => undefined,
    lateResult: async () => undefined,
    lockReport: async () => {
      this.started++;
      this.most = Math.max(this.most, ++this.handling);
      if (!this.open) await new Promise<void>((resolve) => this.held.push(resolve));
      this.handling--;
      this.handled++;
    },
  };

  /** The first report held ends. */
  releaseOne(): void {
    this.held.shift()?.();
  }

  /** Every report held ends, and those to come are not held. */
  openAll(): void {
    this.open = true;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

/** `count` lock reports at QoS 1, each from an access point of its own: nothing orders them but the bound. */
async function storm(url: string, clientId: string, topics: Topics, count: number): Promise<MqttClient> {
  const device = await connectAsync(url, { clientId });
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      device.publishAsync(topics.lock(apId(i), LOCK, 'state'), STATE, { qos: 1 }),
    ),
  );
  return device;
}

describe('MqttGateway under a storm of device messages', () => {
  let bare: BareBroker;
  const topics = new Topics('admission/');

  before(async () => {
    bare = await startBareBroker();
  });

  after(() => bare.close());

  it(`handles at most ${HANDLING_LIMIT} at once, reads no further meanwhile, and loses none`, async () => {
    const count = HANDLING_LIMIT + 128;
    const reports = new HeldReports();
    const { broker, url } = bare;
    const gateway = await MqttGateway.connect({
      url,
      clientId: 'cloud-admission',
      topics,
      clock: new ManualClock(Date.now()),
      logger: silent,
    });
    let acks = 0;
    broker.on('ack', (_packet, client) => {
      if (client.id === 'cloud-admission') acks++;
    });
    let device: MqttClient | undefined;
    try {
      gateway.listen(reports.listener);
      device = await storm(url, 'storm', topics, count);
      await eventually('the gateway to fill its bound', () => reports.started >= HANDLING_LIMIT);
      // The broker has delivered every message (it acknowledged each to the device after writing it
      // to the gateway's socket); the gateway had turns enough to read them all, and took none more.
      await turns(50);
      assert.equal(reports.started, HANDLING_LIMIT);
      assert.equal(acks, HANDLING_LIMIT - 1, 'the last one taken waits for room before it is acknowledged');

      // One ends: exactly one more comes in.
      reports.releaseOne();
      await eventually('the next message', () => reports.started === HANDLING_LIMIT + 1);
      await turns(50);
      assert.equal(reports.started, HANDLING_LIMIT + 1);

      reports.openAll();
      await eventually('every message handled', () => reports.handled === count);
      await eventually('every message acknowledged', () => acks === count);
      assert.equal(reports.most, HANDLING_LIMIT);
    } finally {
      // A failed check leaves reports held: the gateway's close would wait for them.
      reports.openAll();
      await device?.endAsync();
      await gateway.close();
    }
  });

  it('keeps its connection while the keep-alive answer waits behind the messages it has not read', async () => {
    // mqtt.js's keep-alive timer, ticked by the test: every tick is half the keep-alive; the second
    // tick since the last sign of life sends a PINGREQ, the third gives the connection up.
    let tick: (() => void) | undefined;
    const keepaliveTimer = {
      set: (callback: () => void) => {
        tick = callback;
        return 1;
      },
      clear: () => {
        tick = undefined;
      },
    };
    const count = HANDLING_LIMIT + 64;
    const reports = new HeldReports();
    const { broker, url } = bare;
    let dropped = 0;
    let pings = 0;
    const onDisconnect = (client: { id: string }): void => {
      if (client.id === 'cloud-keepalive') dropped++;
    };
    broker.on('clientDisconnect', onDisconnect);
    const gateway = await MqttGateway.connect({
      url,
      clientId: 'cloud-keepalive',
      topics,
      clock: new ManualClock(Date.now()),
      logger: silent,
      keepaliveTimer,
    });
    const client = (gateway as unknown as { client: MqttClient }).client;
    client.on('packetsend', (packet) => {
      if (packet.cmd === 'pingreq') pings++;
    });
    let device: MqttClient | undefined;
    try {
      gateway.listen(reports.listener);
      device = await storm(url, 'storm-keepalive', topics, count);
      await eventually('the gateway to fill its bound', () => reports.started >= HANDLING_LIMIT);
      await turns(50);
      // Nothing read for a keep-alive: the PINGREQ goes out, and its answer lands behind the storm.
      tick?.();
      tick?.();
      assert.equal(pings, 1);
      await turns(50);
      // The storm is read one message at a time, each slower than the keep-alive allows for the
      // answer: every message read is a sign of life, and the connection is kept.
      for (let i = 1; i <= 10; i++) {
        reports.releaseOne();
        await eventually('the next message', () => reports.started === HANDLING_LIMIT + i);
        tick?.();
        tick?.();
        await turns(10);
        assert.equal(client.connected, true, `still connected after ${i} messages read`);
      }
      reports.openAll();
      await eventually('every message handled', () => reports.handled === count);
      assert.equal(client.connected, true);
      assert.equal(dropped, 0, 'the broker saw the connection stay');
    } finally {
      reports.openAll();
      broker.off('clientDisconnect', onDisconnect);
      await device?.endAsync();
      await gateway.close();
    }
  });
  it('closes only once the messages it has taken and acknowledged are handled, reading no more', async () => {
    const reports = new HeldReports();
    const { broker, url } = bare;
    const gateway = await MqttGateway.connect({
      url,
      clientId: 'cloud-close',
      topics,
      clock: new ManualClock(Date.now()),
      logger: silent,
    });
    let acks = 0;
    broker.on('ack', (_packet, client) => {
      if (client.id === 'cloud-close') acks++;
    });
    let device: MqttClient | undefined;
    let closing: Promise<void> | undefined;
    try {
      gateway.listen(reports.listener);
      device = await storm(url, 'storm-close', topics, 10);
      await eventually('every message taken', () => reports.started === 10 && acks === 10);
      let closed = false;
      closing = gateway.close().then(() => {
        closed = true;
      });
      await turns(50);
      assert.equal(closed, false, 'ten acknowledged messages are still being handled');
      // More come while it waits: none is taken (the first is read and waits for its acknowledgement).
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          device?.publishAsync(topics.lock(apId(100 + i), LOCK, 'state'), STATE, { qos: 1 }),
        ),
      );
      await turns(50);
      assert.ok(reports.started <= 11, `${reports.started} taken after close began`);
      reports.openAll();
      await closing;
      assert.equal(
        reports.handled,
        reports.started,
        'every message taken was handled before the close ended',
      );
      assert.ok(acks <= 10, 'none acknowledged after close began');
    } finally {
      reports.openAll();
      await device?.endAsync();
      await (closing ?? gateway.close());
    }
  });

  it(`gives up after ${CLOSE_DRAIN_MS} ms on a handler that never ends, and says so`, async () => {
    const reports = new HeldReports();
    const clock = new ManualClock(Date.now());
    const errors: { fields: unknown; message: string }[] = [];
    const gateway = await MqttGateway.connect({
      url: bare.url,
      clientId: 'cloud-close-stuck',
      topics,
      clock,
      logger: { ...silent, error: (fields: unknown, message: string) => errors.push({ fields, message }) },
    });
    let device: MqttClient | undefined;
    try {
      gateway.listen(reports.listener);
      device = await storm(bare.url, 'storm-close-stuck', topics, 3);
      await eventually('every message taken', () => reports.started === 3);
      let closed = false;
      const closing = gateway.close().then(() => {
        closed = true;
      });
      clock.advance(CLOSE_DRAIN_MS - 1);
      await turns(20);
      assert.equal(closed, false);
      clock.advance(1);
      await closing;
      assert.deepEqual(errors, [
        {
          fields: { messages: 3, waitedMs: CLOSE_DRAIN_MS },
          message: 'device messages still being handled at shutdown are dropped',
        },
      ]);
    } finally {
      reports.openAll();
      await device?.endAsync();
    }
  });
});
