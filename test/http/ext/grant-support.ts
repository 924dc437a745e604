/**
 * Shared by the /ext grant tests: the standard seed with a third account to be the guest (and an
 * unverified one), and the requests the tests repeat.
 */
import assert from 'node:assert/strict';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { OWNER_KEY, standardSeed, type TestServer } from '../../support/server.ts';

export const GUEST = 'guest@example.com';
export const GUEST_KEY = 'guest-api-key-0003';
export const UNVERIFIED = 'unverified@example.com';

export function grantSeed(): Seed {
  const seed = standardSeed();
  return {
    ...seed,
    accounts: [
      ...(seed.accounts ?? []),
      { email: GUEST, password: 'guest-password', verified: true },
      { email: UNVERIFIED, password: 'unverified-password', verified: false },
    ],
    api_keys: [...(seed.api_keys ?? []), { account: GUEST, key: GUEST_KEY }],
  };
}

export interface GrantJson {
  id: string;
  device_id: string;
  role: string;
  state: string;
  starts_at: string | null;
  ends_at: string | null;
  schedule: unknown;
  one_time: boolean;
  guest_email?: string;
  lock_nickname?: string;
  owner_email?: string;
  lock_time_zone?: string;
  [field: string]: unknown;
}

export async function json<T>(res: Response, status: number, what: string): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** An invitation the owner must be able to make; answers the pending grant. */
export async function invite(
  t: TestServer,
  deviceId: string,
  body: Record<string, unknown>,
  key = OWNER_KEY,
): Promise<GrantJson> {
  const res = await t.request(`/ext/locks/${deviceId}/grants`, {
    method: 'POST',
    key,
    json: { email: GUEST, ...body },
  });
  return json<GrantJson>(res, 201, 'invite');
}

export function answerInvitation(
  t: TestServer,
  grantId: string,
  step: 'accept' | 'decline',
  key = GUEST_KEY,
): Promise<Response> {
  return t.request(`/ext/invitations/${grantId}/${step}`, { method: 'POST', key });
}

/** Invites the guest and accepts: an accepted grant. */
export async function granted(
  t: TestServer,
  deviceId: string,
  body: Record<string, unknown>,
): Promise<GrantJson> {
  const grant = await invite(t, deviceId, body);
  return json<GrantJson>(await answerInvitation(t, grant.id, 'accept'), 200, 'accept');
}

export function revoke(t: TestServer, deviceId: string, grantId: string): Promise<Response> {
  return t.request(`/ext/locks/${deviceId}/grants/${grantId}`, { method: 'DELETE', key: OWNER_KEY });
}

export async function deviceIdsOf(t: TestServer, key: string): Promise<string[]> {
  const body = await json<{ locks: { device_id: string }[] }>(
    await t.request('/ext/locks', { key }),
    200,
    'GET /ext/locks',
  );
  return body.locks.map((l) => l.device_id).sort();
}

/** Moves the sandbox clock to `iso` (forward only). */
export async function clockTo(t: TestServer, iso: string): Promise<void> {
  const now = await json<{ epoch_ms: number }>(await t.request('/_sim/clock'), 200, 'clock');
  const seconds = Math.round((Date.parse(iso) - now.epoch_ms) / 1000);
  assert.ok(seconds >= 0, `the clock is past ${iso} already`);
  const res = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: seconds } });
  assert.equal(res.status, 200, 'clock moved');
}
