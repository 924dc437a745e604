/**
 * Reads MQTT packet boundaries off a raw byte stream as the bytes arrive: each packet's fixed header
 * (a type byte, then its remaining length in one to four bytes of 7 bits each) and the length of
 * what follows, which it skips without keeping. So the broker knows how large a packet says it is
 * from its first bytes, and can close the connection before buffering any of it: aedes's parser
 * (mqtt-packet) keeps everything until a packet is complete, whatever length it announced, and has
 * no limit of its own.
 */

/** The MQTT control packet type of CONNECT (the first packet of every connection). */
const CONNECT = 1;

export interface FrameLimits {
  /** The largest remaining length a packet may announce (everything after its fixed header). */
  readonly maxPacketBytes: number;
  /** The first packet must be a CONNECT. */
  readonly connectFirst: boolean;
}

/** Why the stream cannot go on: a packet over the limit, or bytes that are not MQTT. */
export interface FrameProblem {
  readonly kind: 'too_large' | 'malformed';
  readonly detail: string;
}

type State =
  | { readonly at: 'type' }
  | { readonly at: 'length'; value: number; multiplier: number; bytes: number }
  | { readonly at: 'body'; remaining: number };

export class FrameMeter {
  private state: State = { at: 'type' };
  private packets = 0;

  /**
   * Takes the next bytes of the stream; returns why the connection must close (a packet over the
   * limit, a malformed length, a first packet that is not a CONNECT), or undefined. `limits` may
   * change between calls: they apply to the packets whose headers are read from then on.
   */
  feed(chunk: Uint8Array, limits: FrameLimits): FrameProblem | undefined {
    let i = 0;
    while (i < chunk.length) {
      const state = this.state;
      if (state.at === 'body') {
        const skipped = Math.min(state.remaining, chunk.length - i);
        state.remaining -= skipped;
        i += skipped;
        if (state.remaining === 0) this.state = { at: 'type' };
        continue;
      }
      const byte = chunk[i++] ?? 0;
      if (state.at === 'type') {
        if (this.packets === 0 && limits.connectFirst && byte >> 4 !== CONNECT)
          return { kind: 'malformed', detail: 'the first packet is not a CONNECT' };
        this.packets++;
        this.state = { at: 'length', value: 0, multiplier: 1, bytes: 0 };
        continue;
      }
      state.value += (byte & 0x7f) * state.multiplier;
      state.multiplier *= 128;
      state.bytes++;
      // Checked at every length byte: a packet announcing 256 MB is refused at its second byte.
      if (state.value > limits.maxPacketBytes)
        return {
          kind: 'too_large',
          detail: `a packet of at least ${state.value} bytes, over the limit of ${limits.maxPacketBytes}`,
        };
      if (byte & 0x80) {
        if (state.bytes === 4) return { kind: 'malformed', detail: 'a remaining length over four bytes' };
        continue;
      }
      this.state = state.value === 0 ? { at: 'type' } : { at: 'body', remaining: state.value };
    }
    return undefined;
  }
}
