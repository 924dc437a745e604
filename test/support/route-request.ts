/**
 * One request to a v3 or /ext route read from the server's route table (`POST /public/lock/:device_id`),
 * with a credential: its path parameters filled in and a body that would be valid, so what answers
 * is the credential's check. The partner endpoint takes the credential in its body.
 */
import { LOCK_A, type TestServer } from './server.ts';

export const PARTNER = 'POST /public/partners/automation';

export function sendToRoute(
  t: TestServer,
  route: string,
  /** The Authorization header's value; the partner body's `apikey` is `partnerKey`. */
  authorization: string,
  partnerKey: string,
  deviceId = LOCK_A,
): Promise<Response> {
  const [method = 'GET', pattern = ''] = route.split(' ');
  const path = pattern.replace(':device_id', deviceId).replace(/:[a-z_]+/g, 'x');
  if (route === PARTNER)
    return t.request(path, { method, json: { apikey: partnerKey, device_id: deviceId, command: 'lock' } });
  const json =
    route === 'POST /public/lock/:device_id'
      ? { command: 'sync' }
      : method === 'GET' || method === 'DELETE'
        ? undefined
        : {};
  return t.request(path, { method, key: authorization, ...(json === undefined ? {} : { json }) });
}
