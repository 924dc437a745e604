/**
 * Shared by the webhook endpoint tests (docs/webhooks.md "Endpoints"): making endpoints through
 * /ext/webhook-endpoints, reading their delivery logs, and the events as GET /ext/events lists them.
 */
import { eventually } from '../../support/eventually.ts';
import { answer, OWNER_KEY, type TestServer } from '../../support/server.ts';

export interface EndpointAnswer {
  readonly id: string;
  readonly url: string;
  readonly types: string[];
  readonly device_ids: string[];
  readonly retries: boolean;
  readonly enabled: boolean;
  readonly disabled_at: string | null;
  readonly disabled_reason: string | null;
  readonly failing_since: string | null;
  readonly created_at: string;
  readonly secret?: string;
}

export interface EndpointLogEntry {
  readonly id: string;
  readonly event: string;
  readonly event_id: string;
  readonly device_id: string | null;
  readonly url: string;
  readonly status: 'pending' | 'sending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly response_status: number | null;
  readonly error: string | null;
  readonly next_attempt_at: string | null;
}

export async function createEndpoint(
  t: TestServer,
  body: Record<string, unknown>,
  key = OWNER_KEY,
): Promise<EndpointAnswer & { secret: string }> {
  const { status, body: answered } = await answer(
    await t.request('/ext/webhook-endpoints', { method: 'POST', key, json: body }),
  );
  if (status !== 201) throw new Error(`POST /ext/webhook-endpoints: ${status} ${JSON.stringify(answered)}`);
  return answered as EndpointAnswer & { secret: string };
}

export async function endpointLog(t: TestServer, id: string, key = OWNER_KEY): Promise<EndpointLogEntry[]> {
  const res = await t.request(`/ext/webhook-endpoints/${id}/deliveries?limit=500`, { key });
  if (res.status !== 200) throw new Error(`deliveries of ${id}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { deliveries: EndpointLogEntry[] }).deliveries;
}

/** Polls an endpoint's log until `probe` holds; answers it, newest first. */
export async function waitForEndpointLog(
  t: TestServer,
  id: string,
  what: string,
  probe: (log: EndpointLogEntry[]) => boolean,
  key = OWNER_KEY,
): Promise<EndpointLogEntry[]> {
  let log: EndpointLogEntry[] = [];
  await eventually(
    what,
    async () => {
      log = await endpointLog(t, id, key);
      return probe(log);
    },
    15_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(log, null, 1)}`);
  });
  return log;
}

/** The account's events as GET /ext/events lists them, oldest first. */
export async function listedEvents(t: TestServer, key = OWNER_KEY): Promise<Record<string, unknown>[]> {
  const res = await t.request('/ext/events?limit=500', { key });
  return ((await res.json()) as { events: Record<string, unknown>[] }).events;
}
