import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FrameLimits, FrameMeter } from '../../../src/adapters/devices/mqtt/frame-meter.ts';

const CONNECT_ONLY: FrameLimits = { maxPacketBytes: 4096, connectFirst: true };
const AFTER_AUTH: FrameLimits = { maxPacketBytes: 300 * 1024, connectFirst: false };

/** A packet's fixed header: its type and flags, then the remaining length in 7-bit groups. */
function header(type: number, length: number): number[] {
  const bytes = [type << 4];
  let rest = length;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0);
  return bytes;
}

const packet = (type: number, length: number): Uint8Array =>
  Uint8Array.from([...header(type, length), ...new Array<number>(length).fill(0x61)]);

function feedAll(meter: FrameMeter, bytes: Uint8Array, limits: FrameLimits, chunk: number) {
  for (let i = 0; i < bytes.length; i += chunk) {
    const problem = meter.feed(bytes.subarray(i, i + chunk), limits);
    if (problem) return { problem, at: i };
  }
  return undefined;
}

describe('FrameMeter', () => {
  it('refuses a CONNECT announcing 256 MB at its second byte, before any of it is read', () => {
    const meter = new FrameMeter();
    assert.equal(meter.feed(Uint8Array.from([0x10]), CONNECT_ONLY), undefined);
    assert.deepEqual(meter.feed(Uint8Array.from([0xff]), CONNECT_ONLY), undefined);
    const problem = meter.feed(Uint8Array.from([0xff]), CONNECT_ONLY);
    assert.equal(problem?.kind, 'too_large');
    assert.match(problem?.detail ?? '', /at least 16383 bytes, over the limit of 4096/);
  });

  it('lets packets up to the limit through, in any chunking, and refuses one byte more', () => {
    for (const chunk of [1, 2, 3, 7, 64, 100_000]) {
      const ok = new FrameMeter();
      const stream = Uint8Array.from([
        ...packet(1, 4096),
        ...packet(3, 10),
        ...packet(12, 0),
        ...packet(3, 4096),
      ]);
      assert.equal(feedAll(ok, stream, CONNECT_ONLY, chunk), undefined, `chunks of ${chunk}`);
      const over = new FrameMeter();
      const refused = feedAll(
        over,
        Uint8Array.from([...packet(1, 100), ...packet(3, 4097)]),
        CONNECT_ONLY,
        chunk,
      );
      assert.equal(refused?.problem.kind, 'too_large', `chunks of ${chunk}`);
      // Refused within the header of the second packet: nothing of its body was needed.
      assert.ok((refused?.at ?? Infinity) <= 102 + 3, `chunks of ${chunk}: at ${refused?.at}`);
    }
  });

  it('applies the limits given with each chunk: larger packets once the connection is authenticated', () => {
    const meter = new FrameMeter();
    assert.equal(meter.feed(packet(1, 200), CONNECT_ONLY), undefined);
    assert.equal(meter.feed(packet(3, 256 * 1024 + 200), AFTER_AUTH), undefined);
    assert.equal(meter.feed(packet(3, 301 * 1024).subarray(0, 4), AFTER_AUTH)?.kind, 'too_large');
  });

  it('refuses a first packet that is not a CONNECT, and a remaining length over four bytes', () => {
    assert.equal(new FrameMeter().feed(packet(3, 10), CONNECT_ONLY)?.kind, 'malformed');
    assert.equal(new FrameMeter().feed(packet(3, 10), AFTER_AUTH), undefined);
    const fiveBytes = Uint8Array.from([0x10, 0x80, 0x80, 0x80, 0x80, 0x01]);
    assert.equal(
      new FrameMeter().feed(fiveBytes, { maxPacketBytes: 2 ** 30, connectFirst: true })?.kind,
      'malformed',
    );
  });
});
