/**
 * A Server-Sent Events client for the live stream's tests: the frames as they arrive, parsed, and a
 * way to stop reading (a client too slow to keep up). Waits go through eventually(): no sleeps.
 */
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { eventually } from './eventually.ts';

export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  /** A comment line's text (`: heartbeat` → "heartbeat"). */
  readonly comment?: string;
}

export interface LockEventJson {
  id: string;
  type: string;
  device_id: string | null;
  actor: { kind: string; account_id?: string; key_prefix?: string };
  task_id: string | null;
  [key: string]: unknown;
}

export class SseClient {
  readonly frames: SseFrame[] = [];
  ended = false;
  private text = '';

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.take(chunk));
    res.on('end', () => {
      this.ended = true;
    });
    res.on('error', () => {
      this.ended = true;
    });
    res.on('close', () => {
      this.ended = true;
    });
  }

  /** Opens `url` with the key (and other headers); answers once the response's headers arrived. */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) =>
        resolve(new SseClient(res.statusCode ?? 0, res.headers, res)),
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** The lock_event frames' events, in order. */
  get events(): LockEventJson[] {
    return this.frames
      .filter((f) => f.event === 'lock_event')
      .map((f) => JSON.parse(f.data ?? '') as LockEventJson);
  }

  /** Waits until `n` events arrived (or more); answers them. */
  async waitForEvents(n: number, what = `${n} events`): Promise<LockEventJson[]> {
    await eventually(what, () => this.events.length >= n || (this.ended && 'ended early'));
    if (this.events.length < n) throw new Error(`${what}: the stream ended after ${this.events.length}`);
    return this.events;
  }

  waitFor(what: string, probe: (frames: readonly SseFrame[]) => boolean): Promise<true> {
    return eventually(what, () => probe(this.frames));
  }

  waitForEnd(): Promise<true> {
    return eventually('the stream to end', () => this.ended);
  }

  /** Reads no more (what arrives stays in the kernel's buffers) until resume(). */
  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  close(): void {
    this.res.destroy();
  }

  private take(chunk: string): void {
    this.text += chunk;
    for (let end = this.text.indexOf('\n\n'); end >= 0; end = this.text.indexOf('\n\n')) {
      const block = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      const frame: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          frame[field] = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        }
      }
      this.frames.push(frame as SseFrame);
    }
  }
}
