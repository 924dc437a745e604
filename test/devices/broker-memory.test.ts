/**
 * Issue 17, point 1: strangers on the device port must not be able to spend the server's memory.
 * Three raw TCP connections to the embedded broker of a real server process each send a CONNECT
 * whose fixed header announces 256 MB, then stream up to 100 MB of it without credentials. Before
 * the fix the broker's MQTT parser kept all of it (RSS 135 MB -> 885 MB in the report). Now each
 * socket is closed as soon as its header says the packet is too large, and the server's resident
 * memory (VmRSS, sampled throughout) grows by less than 64 MB.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../support/mosquitto.ts';
import { type ServerProcess, startProcess } from '../support/process.ts';

const ATTACKERS = 3;
const STREAM_BYTES = 100 * 2 ** 20;
const RSS_GROWTH_LIMIT = 64 * 2 ** 20;
// A CONNECT (type 1) whose remaining length is 268,435,455 bytes: the largest MQTT can announce.
const CONNECT_256_MB = Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]);
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

interface Attack {
  /** Bytes the server accepted from this socket before it closed (or until all were sent). */
  readonly sent: number;
  readonly closedByServer: boolean;
}

/** Announces 256 MB and streams until STREAM_BYTES are out or the server closes the socket. */
function attack(port: number): Promise<Attack> {
  return new Promise((resolve) => {
    let sent = 0;
    let closed = false;
    const socket: Socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined); // EPIPE / ECONNRESET: the server closed it, as it should
    const pump = (): void => {
      while (!closed && sent < STREAM_BYTES) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) return; // wait for 'drain'
      }
      if (sent >= STREAM_BYTES) {
        // All sent: the server has had every chance to read it. It must close the socket itself;
        // a server that holds it open gets 10 s, then the test says so.
        const timer = setTimeout(() => {
          socket.destroy();
          resolve({ sent, closedByServer: false });
        }, 10_000);
        socket.once('close', () => clearTimeout(timer));
      }
    };
    socket.on('connect', () => {
      socket.write(CONNECT_256_MB);
      pump();
    });
    socket.on('drain', pump);
    socket.once('close', () => {
      if (closed) return;
      closed = true;
      resolve({ sent, closedByServer: true });
    });
  });
}

describe('the embedded broker under unauthenticated connections announcing 256 MB', () => {
  let server: ServerProcess;
  let mqttPort: number;

  before(async () => {
    mqttPort = await freePort();
    server = await startProcess(['--mqtt-port', String(mqttPort)]);
  });
  after(() => server.stop());

  it('closes every socket and its memory grows by less than 64 MB', async () => {
    const pid = server.child.pid;
    assert.ok(pid);
    const before = rssBytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 10);
    let attacks: Attack[];
    try {
      attacks = await Promise.all(Array.from({ length: ATTACKERS }, () => attack(mqttPort)));
      peak = Math.max(peak, rssBytes(pid));
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - before;
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
    process.stdout.write(
      `# RSS ${mb(before)} before, ${mb(peak)} at most during the attack (+${mb(growth)}); ` +
        `each socket got ${attacks.map((a) => mb(a.sent)).join(', ')} out before it was closed\n`,
    );
    assert.deepEqual(
      attacks.map((a) => a.closedByServer),
      Array.from({ length: ATTACKERS }, () => true),
      'the server closes every such socket',
    );
    assert.ok(growth < RSS_GROWTH_LIMIT, `RSS grew by ${mb(growth)}`);
    // The server is still itself: it answers.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });
});
