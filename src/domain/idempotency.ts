import { DomainError } from './errors.ts';

/**
 * Idempotency-Key (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): the client names a
 * command so that sending it again (a retry after a lost answer) answers the first command's task
 * instead of making a second one.
 */

/** A key is remembered this long after its first request (the draft leaves it to the server). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

// Visible ASCII, no space: what the draft's examples use (UUIDs) and what fits any log or URL.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The key a header value names, or undefined when there is no header. The draft's form is a
 * Structured Field string (`"8e03978e-..."`, quoted); the bare value most clients send (Stripe's
 * form) is accepted too. The key is 1 to 255 visible ASCII characters; anything else is refused
 * (INVALID_INPUT naming the header), never ignored: a client that meant to be safe must know it is not.
 */
export function parseIdempotencyKey(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw invalid('the Idempotency-Key header is given more than once');
  let key = header;
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = unquote(key.slice(1, -1));
  if (key.length === 0) throw invalid('the Idempotency-Key header is empty');
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH)
    throw invalid(`the Idempotency-Key is over ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  if (!VISIBLE_ASCII.test(key))
    throw invalid('the Idempotency-Key must be visible ASCII characters (no spaces, no control characters)');
  return key;
}

/** The inside of a Structured Field string: `\"` and `\\` are its only escapes. */
function unquote(inner: string): string {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') {
      const next = inner[i + 1];
      if (next !== '"' && next !== '\\') throw invalid('the Idempotency-Key is not a valid quoted string');
      out += next;
      i++;
    } else if (c === '"') {
      throw invalid('the Idempotency-Key is not a valid quoted string');
    } else {
      out += c;
    }
  }
  return out;
}

function invalid(message: string): DomainError {
  return new DomainError('INVALID_INPUT', message, { field: 'Idempotency-Key' });
}

/**
 * What must be the same for a second request to be "the same request": the endpoint (a key sent to
 * the partner endpoint is not a key of POST /lock), the lock and the command. The account is the
 * key's scope, not part of it; the credential (which of the account's API keys) is not: a client
 * that rotates its key mid-retry still gets its first answer.
 */
export function idempotencyFingerprint(endpoint: string, deviceId: string, command: string): string {
  return JSON.stringify([endpoint, deviceId, command]);
}
