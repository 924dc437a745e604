/** Scoped API keys for the black-box tests: made through POST /ext/keys with the owner's full key. */
import assert from 'node:assert/strict';
import { OWNER_KEY, type TestServer } from './server.ts';

export interface MadeKey {
  readonly id: string;
  readonly key: string;
  readonly prefix: string;
}

/** Makes a key with these limits (the API's names), by `by` (the owner's full-access key by default). */
export async function makeKey(
  t: TestServer,
  limits: Record<string, unknown>,
  by = OWNER_KEY,
): Promise<MadeKey> {
  const res = await t.request('/ext/keys', { method: 'POST', key: by, json: limits });
  const body = (await res.json()) as MadeKey & Record<string, unknown>;
  assert.equal(res.status, 201, JSON.stringify(body));
  return { id: body.id, key: body.key, prefix: body.prefix };
}

/** The sandbox clock, as epoch ms. */
export async function simNow(t: TestServer): Promise<number> {
  const res = await t.request('/_sim/clock');
  return ((await res.json()) as { epoch_ms: number }).epoch_ms;
}
