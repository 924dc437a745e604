/**
 * Verification of lockcloud webhook messages, as Standard Webhooks specifies
 * (https://www.standardwebhooks.com/): HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * with the base64 key after `whsec_`, compared in constant time by Web Crypto. Nothing but the
 * platform (`globalThis.crypto.subtle`, `atob`, `TextEncoder`): it runs in Node 20, Deno, Bun,
 * workers and browsers.
 */
import { WebhookVerificationError } from './errors.js';
import type { WebhookPayload } from './types.js';

/**
 * Headers as they arrive: a fetch `Headers`, or Node's `req.headers` (any case of names).
 *
 * @example
 * const headers: WebhookHeaders = { 'webhook-id': 'msg_…', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,…' };
 */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * How strict {@link verifyWebhook} is.
 *
 * @example
 * await verifyWebhook(body, headers, secret, { toleranceSeconds: 60 });
 */
export interface VerifyOptions {
  /** The largest difference between `webhook-timestamp` and now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
  /** "Now", as a Date or Unix milliseconds (default the real clock; the sandbox clock may run ahead). */
  readonly now?: Date | number;
}

/**
 * Verifies a message's signature (and its timestamp), without reading the body: for `GET`
 * deliveries (empty body) or to parse the body yourself. Any of `secrets` may match, so a receiver
 * keeps working through a rotation. Throws {@link WebhookVerificationError}.
 *
 * @example
 * // a GET delivery: the state is in the URL you configured
 * await verifyWebhookSignature('', req.headers, process.env.WEBHOOK_SECRET ?? '');
 */
export async function verifyWebhookSignature(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<void> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time');
  const now = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now / 1000 - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const bodyBytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const given = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value]) => version === 'v1' && value !== undefined && value !== '')
    .map(([, value]) => fromBase64(value ?? ''))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new WebhookVerificationError('no secret to verify with');
  for (const secret of list) {
    const keyBytes = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
    if (keyBytes === undefined || keyBytes.length === 0)
      throw new WebhookVerificationError('the secret is not base64');
    const key = await globalThis.crypto.subtle.importKey(
      'raw',
      keyBytes,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    for (const signature of given) {
      if (await globalThis.crypto.subtle.verify('HMAC', key, signature, signed)) return;
    }
  }
  throw new WebhookVerificationError('no signature matches');
}

/**
 * Verifies a `POST` delivery (see {@link verifyWebhookSignature}) and parses its body: pass the raw
 * body as it arrived, before any JSON parsing. Resolves to `{device_id, locked, state}`; throws
 * {@link WebhookVerificationError}.
 *
 * @example
 * http.createServer(async (req, res) => {
 *   const chunks = [];
 *   for await (const chunk of req) chunks.push(chunk);
 *   try {
 *     const event = await verifyWebhook(Buffer.concat(chunks), req.headers, process.env.WEBHOOK_SECRET ?? '');
 *     console.log(event.device_id, event.state);
 *     res.writeHead(204).end();
 *   } catch {
 *     res.writeHead(400).end();
 *   }
 * });
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookPayload> {
  await verifyWebhookSignature(body, headers, secrets, options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const p = parsed as Partial<Record<keyof WebhookPayload, unknown>> | null;
  if (
    typeof p !== 'object' ||
    p === null ||
    typeof p.device_id !== 'string' ||
    typeof p.locked !== 'boolean' ||
    (p.state !== 'locked' && p.state !== 'unlocked')
  ) {
    throw new WebhookVerificationError('the body is not a lockcloud webhook payload');
  }
  return { device_id: p.device_id, locked: p.locked, state: p.state };
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/** Bytes on their own ArrayBuffer: Web Crypto takes no view of a SharedArrayBuffer (lib.dom, @types/node 22+). */
function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}
