/**
 * The /ext webhook API as the black-box webhook tests use it (test/http/webhooks, test/http/ext):
 * setting the webhook, sending a test event, reading the delivery log, waiting for an outcome, and
 * waiting until nothing more will be sent.
 */
import { eventually } from './eventually.ts';
import { advanceClock, answer, OWNER_KEY, type TestServer } from './server.ts';

export const FLAGS = ['--no-rate-limit'] as const;

/** A delivery log entry as GET /ext/webhook/deliveries answers it. */
export interface LogEntry {
  readonly id: string;
  readonly event: string;
  readonly device_id: string;
  readonly url: string;
  readonly method: string;
  readonly status: 'pending' | 'sending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly response_status: number | null;
  readonly error: string | null;
  readonly latency_ms: number | null;
  readonly created_at: string;
  readonly last_attempt_at: string | null;
  readonly next_attempt_at: string | null;
}

export interface WebhookAnswer {
  readonly url: string;
  readonly method: string;
  readonly retries: boolean;
  readonly secret?: string;
}

/** PUT /ext/webhook, which must succeed; the answer's body. */
export async function putWebhook(
  t: TestServer,
  body: { url: string; method?: 'GET' | 'POST'; retries?: boolean },
  key = OWNER_KEY,
): Promise<WebhookAnswer> {
  const { status, body: answered } = await answer(
    await t.request('/ext/webhook', { method: 'PUT', key, json: body }),
  );
  if (status !== 200) throw new Error(`PUT /ext/webhook refused: ${status} ${JSON.stringify(answered)}`);
  return answered as WebhookAnswer;
}

/** POST to an /ext path that answers 2xx with JSON; anything else fails the test. */
export async function extPost(
  t: TestServer,
  path: string,
  key = OWNER_KEY,
): Promise<Record<string, unknown>> {
  const { status, body } = await answer(await t.request(`/ext${path}`, { method: 'POST', key }));
  if (status < 200 || status > 299) throw new Error(`POST /ext${path}: ${status} ${JSON.stringify(body)}`);
  return body as Record<string, unknown>;
}

/** POST /ext/webhook/test, which must be accepted; the new delivery's id. */
export async function sendTestEvent(t: TestServer, key = OWNER_KEY): Promise<string> {
  const res = await answer(await t.request('/ext/webhook/test', { method: 'POST', key }));
  const id = (res.body as { delivery_id?: unknown } | null)?.delivery_id;
  if (res.status !== 202 || typeof id !== 'string')
    throw new Error(`POST /ext/webhook/test: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

/** The delivery log as the API answers it: newest first. */
export async function deliveryLog(t: TestServer, key = OWNER_KEY): Promise<LogEntry[]> {
  const { status, body } = await answer(await t.request('/ext/webhook/deliveries?limit=500', { key }));
  if (status !== 200) throw new Error(`GET /ext/webhook/deliveries: ${status} ${JSON.stringify(body)}`);
  return body as LogEntry[];
}

/** The delivery log, oldest first (the API answers newest first). */
export async function deliveries(t: TestServer, key = OWNER_KEY): Promise<LogEntry[]> {
  return [...(await deliveryLog(t, key))].reverse();
}

/** Polls the log until the delivery has its outcome (delivered or failed); answers its entry. */
export function waitForOutcome(t: TestServer, id: string, key = OWNER_KEY): Promise<LogEntry> {
  return eventually(`delivery ${id} to have its outcome`, async () => {
    const entry = (await deliveryLog(t, key)).find((e) => e.id === id);
    return (entry?.status === 'delivered' || entry?.status === 'failed') && entry;
  });
}

/**
 * Resolves once the server sends nothing more for now to the webhooks of the accounts of `keys`:
 * POST /_sim/clock (0 s) answers once the dispatcher has started every message that is due
 * (docs/sandbox.md), and then the log is read until none is being sent or due. After it, a receiver
 * has every request it is going to get until something else happens: for "nothing was sent" checks.
 */
export async function dispatcherIdle(t: TestServer, keys: readonly string[] = [OWNER_KEY]): Promise<void> {
  await advanceClock(t, 0);
  const now = ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
  const busy = (e: LogEntry): boolean =>
    e.status === 'sending' ||
    (e.status === 'pending' && e.next_attempt_at !== null && Date.parse(e.next_attempt_at) <= now);
  for (const key of keys)
    await eventually(
      'no webhook message being sent or due',
      async () => !(await deliveryLog(t, key)).some(busy),
    );
}
