/**
 * A parser of `text/event-stream` (the HTML standard's "event stream interpretation"), internal: the
 * body arrives in chunks cut anywhere, so a partial line waits for the next chunk. Lines end with
 * CRLF, LF or CR; a blank line ends a message; `:` starts a comment (the server's heartbeat).
 */

/**
 * One message of the stream.
 *
 * @example
 * const m: SseMessage = { event: 'lock_event', data: '{"id":"evt_…"}', id: 'evt_…' };
 */
export interface SseMessage {
  /** `message` when the server named none. */
  readonly event: string;
  readonly data: string;
  /** The message's `id:`, if it had one. */
  readonly id?: string | undefined;
  /** A `retry:` field's reconnection time, in ms. */
  readonly retry?: number | undefined;
}

/**
 * Feeds text in, takes whole messages out.
 *
 * @example
 * const parser = new SseParser();
 * for (const m of parser.feed('event: lock_event\ndata: {}\n\n')) console.log(m.event);
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;
  #retry: number | undefined;
  /** A chunk ended on CR: a LF starting the next one belongs to it. */
  #afterCr = false;

  /**
   * The messages this chunk completes (none while a message still lacks its blank line).
   *
   * @example
   * parser.feed('data: 1\n'); // []
   */
  feed(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.#afterCr && text.startsWith('\n')) text = text.slice(1);
    this.#afterCr = text.endsWith('\r');
    this.#buffer += text;
    const out: SseMessage[] = [];
    const lines = this.#buffer.split(/\r\n|\r|\n/);
    this.#buffer = lines.pop() ?? '';
    for (const line of lines) {
      const message = this.#line(line);
      if (message !== undefined) out.push(message);
    }
    return out;
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.#retry = Number(value);
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const retry = this.#retry;
    this.#retry = undefined;
    if (this.#data.length === 0) {
      this.#event = '';
      // A block with only `retry:` still says the reconnection time.
      return retry === undefined ? undefined : { event: '', data: '', retry };
    }
    const message: SseMessage = {
      event: this.#event === '' ? 'message' : this.#event,
      data: this.#data.join('\n'),
      id: this.#id,
      retry,
    };
    this.#event = '';
    this.#data = [];
    this.#id = undefined;
    return message;
  }
}
