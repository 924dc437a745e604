/**
 * Shared by the webhook black-box tests: waiting until the dispatcher is idle, seeds with webhooks,
 * and a Standard Webhooks verifier written from the specification alone (it shares no code with
 * src/). The /ext webhook API and the delivery log are in test/support/webhooks.ts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { eventually } from '../../support/eventually.ts';
import { OWNER, OWNER_KEY, standardSeed, type TestServer } from '../../support/server.ts';
import { deliveries, type LogEntry } from '../../support/webhooks.ts';

const busy = (e: LogEntry): boolean => e.status === 'sending' || (e.status === 'pending' && e.attempts === 0);

/**
 * Polls the log until it holds at least `expected` entries and none is waiting for its first
 * attempt or being sent (a message waiting for a retry counts as settled). Answers the log, oldest first.
 */
export async function settle(t: TestServer, expected: number, key = OWNER_KEY): Promise<LogEntry[]> {
  let log: LogEntry[] = [];
  await eventually(
    `the delivery log to settle at ${expected} entries`,
    async () => {
      log = await deliveries(t, key);
      return log.length >= expected && !log.some(busy);
    },
    15_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(log, null, 1)}`);
  });
  return log;
}

/** Polls the log until `probe` holds for it. */
export async function waitForLog(
  t: TestServer,
  what: string,
  probe: (log: LogEntry[]) => boolean,
  key = OWNER_KEY,
): Promise<LogEntry[]> {
  let log: LogEntry[] = [];
  await eventually(
    what,
    async () => {
      log = await deliveries(t, key);
      return probe(log);
    },
    15_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(log, null, 1)}`);
  });
  return log;
}

/** The server's (sandbox) clock, in ms. */
export async function serverNow(t: TestServer): Promise<number> {
  const res = await t.request('/_sim/clock');
  return ((await res.json()) as { epoch_ms: number }).epoch_ms;
}

/** One header's value as a string (node gives arrays only for set-cookie). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The standard seed with a webhook (and optional known secret) for some accounts. */
export function seedWithWebhooks(webhooks: NonNullable<Seed['webhooks']>): Seed {
  return { ...standardSeed(), webhooks };
}

/** A webhook for the owner in the seed, to the given URL. */
export function ownerHook(
  url: string,
  extra: { method?: 'GET' | 'POST'; retries?: boolean; secret?: string } = {},
) {
  return { account: OWNER, url, ...extra };
}

// ---- Standard Webhooks verification, from the specification (standardwebhooks.com) ----

/**
 * Checks a delivery as a receiver following the Standard Webhooks specification would: the signed
 * content is `${webhook-id}.${webhook-timestamp}.${body}`; the key is the base64-decoded part after
 * `whsec_`; `webhook-signature` is a space-separated list of `v1,<base64 HMAC-SHA256>`, and the
 * delivery is genuine when any of them matches (compared in constant time).
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The `v1,...` entries of a webhook-signature header. */
export function signatureEntries(headers: IncomingHttpHeaders): string[] {
  return (header(headers, 'webhook-signature') ?? '').split(' ').filter((s) => s !== '');
}
