/**
 * How many device messages the gateway handles at once. Past the bound it asks the MQTT client to
 * read nothing more: mqtt.js takes the next packet off the socket only once `handleMessage` has
 * called back, and the broker then holds each access point's next message until the last one is
 * delivered. So a storm (10,000 access points reconnecting after a broker restart) waits in the
 * sockets and the broker, a packet per access point, instead of as thousands of half-done store
 * writes in this heap: those outlived V8's young generation and grew the old one to four times what
 * was live (docs/performance-notes.md, "Issue 25: 100,000 locks through Mosquitto").
 *
 * No handler waits for another device message (commands wait for acknowledgements, but a command
 * is started by a request, never by a device message), so a full bound always drains.
 */
export class Admission {
  private handling = 0;
  // mqtt.js reads one packet at a time, so one at most; a list all the same, so none is ever lost.
  private readonly parked: (() => void)[] = [];
  private closed = false;
  private readonly idle: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** A message is being handled. */
  begin(): void {
    this.handling++;
  }

  /** A message is handled: the client may read on if it was held. */
  end(): void {
    this.handling--;
    while (!this.closed && this.handling < this.limit && this.parked.length > 0) this.parked.shift()?.();
    if (this.handling === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** `next` (the client reading on) now, or once fewer than `limit` messages are being handled. */
  admit(next: () => void): void {
    if (!this.closed && this.handling < this.limit) next();
    else this.parked.push(next);
  }

  /**
   * The client reads nothing more from now on; resolves once every message being handled is done.
   * The one taken last stays unacknowledged (its `next` is parked), though it is handled.
   */
  close(): Promise<void> {
    this.closed = true;
    if (this.handling === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Messages being handled (the tests read it). */
  get size(): number {
    return this.handling;
  }
}
