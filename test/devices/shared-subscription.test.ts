/**
 * With an external broker the cloud listens through a shared subscription (docs/deploy.md). What the
 * devices left retained while no server listened (a last will, a hand turn) is applied when a server
 * connects, live reports arrive once, and an older one changes nothing. (Mosquitto 2.0 sends retained
 * messages to shared subscriptions too, so this passes with or without the gateway's own catch-up;
 * test/unit/devices/catch-up.test.ts checks that catch-up on a broker that does not.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apUsername, Topics } from '../../src/device-protocol/topics.ts';
import {
  AP_HOME,
  clearRetained,
  deviceSeed,
  MOSQUITTO_URL,
  mosquittoUp,
  RawAp,
  statusIs,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, LOCK_B, startServer, type TestServer } from '../support/server.ts';

const up = await mosquittoUp();

describe('shared subscriptions on Mosquitto', { skip: up ? false : 'no Mosquitto on 127.0.0.1:1883' }, () => {
  const prefix = `lctest-${randomUUID().slice(0, 8)}/`;
  const topics = new Topics(prefix);
  // The machine's Mosquitto is shared with other test files running at the same time: a client id of
  // this run's own, or one file's access point would take over another's session (and its last will
  // would tell the other's server that the access point went offline).
  const clientId = `${prefix.replace(/\//g, '-')}${apUsername(AP_HOME)}`;
  const serverFlags = [
    '--no-rate-limit',
    '--no-simulator',
    '--mqtt-url',
    MOSQUITTO_URL,
    '--mqtt-prefix',
    prefix,
  ];
  let dataDir = '';
  let t: TestServer | undefined;

  before(async () => {
    // A deployment that knows its locks, then goes away (every server process stopped).
    dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-shared-'));
    const first = await startServer({ seed: deviceSeed(), dataDir, flags: serverFlags });
    await first.close();
    // The access point speaks while no server listens: all of it is retained at the broker.
    const home = await RawAp.connect(MOSQUITTO_URL, topics, AP_HOME, '', { subscribe: false, clientId });
    await home.online(true);
    await home.state(LOCK_A, { seq: 3, epoch: 'e1', locked: false, battery: 42 });
    await home.state(LOCK_B, { seq: 3, epoch: 'e1', locked: true, battery: 77, reachable: false });
    home.end();
  });

  after(async () => {
    await t?.close();
    await clearRetained(MOSQUITTO_URL, prefix);
    if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies the retained state as the server connects', async () => {
    t = await startServer({ seed: null, dataDir, flags: serverFlags });
    const server = t;
    await eventually('the retained hand turn', statusIs(server, LOCK_A, { locked: false, battery: 42 }));
    await eventually('the retained loss of reach', statusIs(server, LOCK_B, { responsive: false }));
  });

  it('hears live reports through the shared subscription, once each, and no older one', async () => {
    const server = t;
    assert.ok(server);
    const home = await RawAp.connect(MOSQUITTO_URL, topics, AP_HOME, '', { subscribe: false, clientId });
    try {
      await home.state(LOCK_A, { seq: 4, epoch: 'e1', locked: true, battery: 41 });
      await eventually('the live report', statusIs(server, LOCK_A, { locked: true, battery: 41 }));
      // A report older than the retained one applied at start changes nothing.
      await home.state(LOCK_A, { seq: 2, epoch: 'e1', locked: false, battery: 5 });
      await home.state(LOCK_A, { seq: 5, epoch: 'e1', locked: true, battery: 40 });
      await eventually('the next report', statusIs(server, LOCK_A, { battery: 40 }));
      assert.equal(await statusIs(server, LOCK_A, { locked: true })(), true);
    } finally {
      home.end();
    }
  });
});
