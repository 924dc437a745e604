/**
 * Shared by the /ext black-box tests: a spy on every outgoing TCP connect of this process, and checks
 * of an answer whole. The webhook receiver and the /ext webhook API helpers are in test/support/
 * (webhook-receiver.ts, webhooks.ts).
 */
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { answer } from '../../support/server.ts';
import { JSON_UTF8 } from '../bad-input-helpers.ts';

export interface ConnectAttempt {
  /** The host connect() was asked for: an address, or a name still to be resolved. */
  readonly host: string;
  readonly port: number;
  /** The peer address once a TCP connection was made; undefined while (or if) none was. */
  connectedTo: string | undefined;
}

/**
 * Records every net.Socket connect() of this process (the server under test runs in it), and the
 * address each one really reached. Restore with the returned function.
 */
export function spyOnConnects(): { attempts: ConnectAttempt[]; restore: () => void } {
  const attempts: ConnectAttempt[] = [];
  const original = Socket.prototype.connect;
  const spied = function (this: Socket, ...args: unknown[]): Socket {
    const [first, second] = args;
    let host = 'localhost';
    let port = 0;
    if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
      const options = first as { host?: string; port?: number | string; path?: string };
      if (options.path === undefined) {
        host = options.host ?? 'localhost';
        port = Number(options.port);
      } else host = `unix:${options.path}`;
    } else if (Array.isArray(first)) {
      // Node's internal normalized form: [options, callback].
      const options = (first[0] ?? {}) as { host?: string; port?: number | string };
      host = options.host ?? 'localhost';
      port = Number(options.port);
    } else {
      port = Number(first);
      if (typeof second === 'string') host = second;
    }
    const attempt: ConnectAttempt = { host, port, connectedTo: undefined };
    attempts.push(attempt);
    this.once('connect', () => {
      attempt.connectedTo = this.remoteAddress;
    });
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  };
  Socket.prototype.connect = spied as typeof Socket.prototype.connect;
  return {
    attempts,
    restore: () => {
      Socket.prototype.connect = original;
    },
  };
}

/** The answer whole: status, body, and the headers every answer carries. */
export async function expectAnswer(
  res: Response,
  status: number,
  body: unknown,
  what: string,
): Promise<void> {
  const got = await answer(res);
  assert.deepEqual(got, { status, body }, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  assert.ok(res.headers.get('x-request-id'), `${what}: X-Request-Id`);
}

/** An extension error: exactly {"error","message"} with a message matching `message`. */
export async function expectExtError(
  res: Response,
  status: number,
  error: string,
  message: RegExp,
  what: string,
): Promise<void> {
  const got = await answer(res);
  const body = got.body as Record<string, unknown>;
  assert.deepEqual(
    { status: got.status, keys: Object.keys(body ?? {}), error: body?.error },
    { status, keys: ['error', 'message'], error },
    `${what}: ${JSON.stringify(got)}`,
  );
  assert.match(String(body.message), message, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  assert.ok(res.headers.get('x-request-id'), `${what}: X-Request-Id`);
}
