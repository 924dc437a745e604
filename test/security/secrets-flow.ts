/**
 * Issue 11, point 5: every kind of secret the service handles, made known to the test in clear and
 * used the way clients use it, against a running server process: seeded and changed passwords (sign-up,
 * change, reset, the sandbox, the admin CLI), v1 tokens, API keys (seeded, made in the dashboard,
 * sent as the partner endpoint's apikey), webhook secrets (seeded, set, rotated, by the CLI), the
 * codes of sign-up, API Settings and password reset, dashboard cookies and CSRF tokens, an access
 * point's MQTT secret, the server key, and OAuth's (an app's client secret made in the dashboard,
 * an authorization code, access and refresh tokens, the provider's cookies). Wrong guesses and unreadable bodies carrying them too, so
 * the error answers have something to leak. The callers then search the store, the logs and the
 * error answers for all of it (plaintexts.ts).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Seed } from '../../src/app/seed/schema.ts';
import { type Run, runAdmin } from '../support/admin-cli.ts';
import { LOCK_A, OTHER_LOCK } from '../support/server.ts';
import type { Receiver } from '../support/webhook-receiver.ts';
import type { Plaintexts } from './plaintexts.ts';
import { Browser, mailedCode, type Recorder, wrongCode } from './recorder.ts';

export const OWNER = 'owner@example.com';
export const OTHER = 'other@example.com';
export const UNVERIFIED = 'unverified@example.com';
export const NEWCOMER = 'newcomer@example.com';
export const CLI_MADE = 'cli-made@example.com';
/** The redirect URI of the OAuth app the flow registers: nothing listens there, the test reads it. */
export const OAUTH_REDIRECT = 'http://127.0.0.1:9/callback';

const unique = (what: string): string => `${what}-${randomBytes(12).toString('base64url')}`;

/** The seed, its plaintexts registered, and the server key the process is given. */
export function seededSecrets(secrets: Plaintexts, receiverUrl: string): { seed: Seed; serverKey: string } {
  const pw = (email: string) => secrets.add('password', `seeded password of ${email}`, unique('pw'));
  const serverKey = secrets.add('server key', 'LOCKCLOUD_SECRET_KEY', randomBytes(32).toString('base64'));
  const seed: Seed = {
    accounts: [
      { email: OWNER, password: pw(OWNER), verified: true },
      { email: OTHER, password: pw(OTHER), verified: true },
      { email: UNVERIFIED, password: pw(UNVERIFIED), verified: false },
    ],
    api_keys: [
      { account: OWNER, key: secrets.add('api key', 'seeded key of owner', unique('seed-key')) },
      { account: OTHER, key: secrets.add('api key', 'seeded key of other', unique('seed-key')) },
    ],
    locks: [
      { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door', owner: OWNER },
      { device_id: OTHER_LOCK, serial: 'SERIAL00CC', nickname: 'Their door', owner: OTHER },
    ],
    webhooks: [
      {
        account: OWNER,
        url: `${receiverUrl}/owner`,
        secret: secrets.add(
          'webhook secret',
          'seeded webhook secret',
          `whsec_${randomBytes(24).toString('base64')}`,
        ),
      },
    ],
  };
  return { seed, serverKey };
}

const seeded = (secrets: Plaintexts, label: string): string => {
  const found = secrets.all.find((p) => p.label === label);
  if (!found) throw new Error(`no plaintext "${label}"`);
  return found.value;
};

/** Admin CLI runs, for the caller to check: stdout prints a secret only where it is made. */
export interface CliRun extends Run {
  readonly args: readonly string[];
  /** Secrets this run prints by design, once, to the operator who made them. */
  readonly shows: readonly string[];
}

export async function exercise(
  http: Recorder,
  secrets: Plaintexts,
  receiver: Receiver,
  adminEnv: Record<string, string>,
): Promise<CliRun[]> {
  const ownerPassword = seeded(secrets, `seeded password of ${OWNER}`);
  const ownerKey = seeded(secrets, 'seeded key of owner');
  const json = (body: unknown) => ({ json: body });

  // v1: a token, a wrong password that contains the right one, an unreadable body carrying it.
  const login = (email: string, password: string, status: number) =>
    http.expect(status, 'POST', '/v1/accounts/login', json({ email, password }));
  const token = JSON.parse((await login(OWNER, ownerPassword, 200)).body).authorization as string;
  secrets.add('v1 token', 'v1 token of owner', token);
  await login(OWNER, `${ownerPassword}!`, 400);
  await login('nobody@example.com', ownerPassword, 400);
  await login(UNVERIFIED, seeded(secrets, `seeded password of ${UNVERIFIED}`), 403);
  await http.expect(400, 'POST', '/v1/accounts/login', {
    raw: `{"email":"${OWNER}","password":"${ownerPassword}"`,
  });
  await http.expect(200, 'GET', '/v1/locks', { headers: { 'x-authorization': token } });
  await http.expect(401, 'GET', '/v1/locks', { headers: { 'x-authorization': `${token}x` } });
  await http.expect(401, 'GET', '/v1/locks', { headers: { 'x-authorization': token.slice(0, -1) } });

  // v3 and the partner endpoint: the key in the header, in the body, wrong, and in a broken body.
  await http.expect(200, 'GET', '/public/locks', { headers: { authorization: ownerKey } });
  await http.expect(200, 'GET', '/public/locks', { headers: { authorization: `Bearer ${ownerKey}` } });
  await http.expect(401, 'GET', '/public/locks', { headers: { authorization: `${ownerKey}x` } });
  const partner = (apikey: string) => json({ apikey, device_id: LOCK_A, command: 'lock' });
  await http.expect(200, 'POST', '/public/partners/automation', partner(ownerKey));
  await http.expect(401, 'POST', '/public/partners/automation', partner(`${ownerKey}x`));
  await http.expect(400, 'POST', '/public/partners/automation', { raw: `{"apikey":"${ownerKey}",` });
  await http.expect(400, 'GET', '/public/lock/not-a-lock', { headers: { authorization: ownerKey } });

  // Webhook secrets: rotated over /ext, set the first time for another account, a test delivery.
  const ext = (method: string, path: string, key: string, body?: unknown) =>
    http.call(method, `/ext${path}`, { headers: { authorization: key }, ...(body ? json(body) : {}) });
  const rotated = await ext('POST', '/webhook/rotate-secret', ownerKey);
  assert.equal(rotated.status, 200, rotated.body);
  secrets.add('webhook secret', 'rotated over /ext', JSON.parse(rotated.body).secret);
  const otherKey = seeded(secrets, 'seeded key of other');
  const set = await ext('PUT', '/webhook', otherKey, { url: `${receiver.url}/other`, method: 'POST' });
  assert.equal(set.status, 200, set.body);
  secrets.add('webhook secret', 'set over /ext', JSON.parse(set.body).secret);
  await http.expect(400, 'PUT', '/ext/webhook', {
    headers: { authorization: otherKey },
    raw: `{"url":"${receiver.url}/x?key=${otherKey}","method":`,
  });
  assert.equal((await ext('POST', '/webhook/test', ownerKey)).status, 202);
  await receiver.waitFor(1, 20_000);
  assert.equal((await ext('GET', '/webhook/deliveries', ownerKey)).status, 200);

  // The dashboard: sign up, verify, log in, unlock API Settings, make a key and a webhook secret,
  // rotate it, change the password. Each step once wrong first.
  const browser = new Browser(http, secrets);
  await browser.get('/dashboard/signup');
  const firstPassword = secrets.add('password', 'sign-up password', unique('signup-pw'));
  await browser.post('/dashboard/signup', { email: NEWCOMER, password: firstPassword }, 303);
  const signupCode = secrets.add('code', 'sign-up code', await mailedCode(http, NEWCOMER, /verification/));
  await browser.get('/dashboard/verify');
  await browser.submit('/dashboard/verify', { email: NEWCOMER, code: wrongCode(signupCode) }, 400);
  await browser.post('/dashboard/verify', { email: NEWCOMER, code: signupCode }, 303);
  await browser.get('/dashboard/login');
  await browser.submit('/dashboard/login', { email: NEWCOMER, password: `${firstPassword}!` }, 400);
  await browser.post('/dashboard/login', { email: NEWCOMER, password: firstPassword }, 303);
  await browser.get('/dashboard/api-settings');
  await browser.submit('/dashboard/api-settings/code', {}, 200);
  const apiCode = secrets.add('code', 'API Settings code', await mailedCode(http, NEWCOMER, /API Settings/));
  await browser.submit('/dashboard/api-settings/confirm', { code: wrongCode(apiCode) }, 400);
  await browser.submit('/dashboard/api-settings/confirm', { code: apiCode }, 200);
  const keyPage = await browser.submit('/dashboard/api-settings/keys', {}, 200);
  const dashKey = /data-testid="revealed-key">([^<]+)</.exec(keyPage.body)?.[1] ?? '';
  secrets.add('api key', 'made in the dashboard', dashKey);
  const revealedSecret = (body: string) =>
    /data-testid="revealed-webhook-secret">([^<]+)</.exec(body)?.[1] ?? '';
  const hookPage = await browser.submit(
    '/dashboard/api-settings/webhook',
    { url: `${receiver.url}/new`, method: 'POST' },
    200,
  );
  secrets.add('webhook secret', 'set in the dashboard', revealedSecret(hookPage.body));
  const rotatePage = await browser.submit('/dashboard/api-settings/webhook/rotate', {}, 200);
  secrets.add('webhook secret', 'rotated in the dashboard', revealedSecret(rotatePage.body));
  await http.expect(200, 'GET', '/public/locks', { headers: { authorization: dashKey } });
  await http.expect(401, 'POST', '/public/partners/automation', partner(dashKey.slice(0, -1)));
  await oauthFlow(http, browser, secrets);
  await browser.get('/dashboard/account');
  const changed = secrets.add('password', 'changed in the dashboard', unique('changed-pw'));
  await browser.submit(
    '/dashboard/account/password',
    { current_password: `${firstPassword}!`, new_password: changed },
    400,
  );
  await browser.submit(
    '/dashboard/account/password',
    { current_password: firstPassword, new_password: changed },
    200,
  );
  await browser.post('/dashboard/logout', {}, 303);
  secrets.add(
    'v1 token',
    'v1 token after the change',
    JSON.parse((await login(NEWCOMER, changed, 200)).body).authorization,
  );

  // Forgot password for the owner: a reset code, a wrong one, the new password.
  const forgot = new Browser(http, secrets);
  await forgot.get('/dashboard/forgot');
  await forgot.post('/dashboard/forgot', { email: OWNER }, 303);
  await forgot.post('/dashboard/forgot', { email: 'nobody@example.com' }, 303);
  const resetCode = secrets.add('code', 'reset code', await mailedCode(http, OWNER, /password code/));
  const reset = secrets.add('password', 'set by reset', unique('reset-pw'));
  await forgot.get('/dashboard/reset');
  await forgot.submit('/dashboard/reset', { email: OWNER, code: wrongCode(resetCode), password: reset }, 400);
  await forgot.post('/dashboard/reset', { email: OWNER, code: resetCode, password: reset }, 303);
  await login(OWNER, reset, 200);

  // The sandbox sets a password, and reads one from a body it cannot parse.
  const simPassword = secrets.add('password', 'set by /_sim/accounts', unique('sim-pw'));
  await http.expect(200, 'POST', `/_sim/accounts/${OTHER}`, json({ password: simPassword }));
  await http.expect(400, 'POST', `/_sim/accounts/${OTHER}`, { raw: `{"password":"${simPassword}"` });

  // The admin CLI beside the running server: passwords in, secrets printed once where they are made.
  const runs: CliRun[] = [];
  const admin = async (args: string[], shows: (run: Run) => string[] = () => []): Promise<Run> => {
    const run = await runAdmin(args, adminEnv);
    assert.equal(run.code, 0, `admin ${args[0]}: ${run.stderr}`);
    runs.push({ ...run, args, shows: shows(run) });
    return run;
  };
  const adminPassword = secrets.add('password', 'set by admin set-password', unique('admin-pw'));
  await admin(['set-password', OTHER, '--password', adminPassword]);
  const createdPassword = secrets.add('password', 'given to admin create-account', unique('cli-pw'));
  await admin(['create-account', CLI_MADE, '--password', createdPassword]);
  const printed =
    (pattern: RegExp, kind: 'webhook secret' | 'device secret', label: string) => (run: Run) => [
      secrets.add(kind, label, pattern.exec(run.stdout)?.[1] ?? ''),
    ];
  await admin(
    ['set-webhook', CLI_MADE, `${receiver.url}/cli`],
    printed(/signing secret \(shown this once[^:]*\): (\S+)/, 'webhook secret', 'set by admin set-webhook'),
  );
  await admin(
    ['register-ap', CLI_MADE, '--name', 'Hall'],
    printed(/password: (\S+)/, 'device secret', 'printed by admin register-ap'),
  );
  await admin(['accounts', '--json']);
  await admin(['webhook', CLI_MADE]);
  await login(OTHER, adminPassword, 200);
  await login(CLI_MADE, createdPassword, 200);
  return runs;
}

/** The Location of the last answer, which must be a redirect. */
function locationOf(http: Recorder): string {
  const location = http.answers.at(-1)?.headers.match(/^location: (.+)$/m)?.[1];
  if (location === undefined) throw new Error(`${http.answers.at(-1)?.what}: no Location`);
  return location;
}

/**
 * OAuth (issue 24), as an app and its user go through it: an app registered in the dashboard (its
 * client secret shown once), the authorization with PKCE and the consent page, the code exchanged
 * (a wrong secret first), the access token used (and a wrong one), the refresh token rotated and
 * the spent one presented again, a token revoked.
 */
async function oauthFlow(http: Recorder, browser: Browser, secrets: Plaintexts): Promise<void> {
  await browser.get('/dashboard/apps');
  const registered = await browser.submit(
    '/dashboard/apps',
    { name: 'Secrets test app', redirect_uris: OAUTH_REDIRECT, kind: 'confidential' },
    200,
  );
  const clientId = /data-testid="revealed-client-id">([^<]+)</.exec(registered.body)?.[1] ?? '';
  const clientSecret = secrets.add(
    'oauth client secret',
    'client secret made in the dashboard',
    /data-testid="revealed-client-secret">([^<]+)</.exec(registered.body)?.[1] ?? '',
  );
  assert.match(clientId, /^lca_/);

  const verifier = randomBytes(32).toString('base64url');
  const authorization = new URLSearchParams({
    client_id: clientId,
    redirect_uri: OAUTH_REDIRECT,
    response_type: 'code',
    scope: 'locks:read',
    state: 'state-1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  await browser.get(`/oauth/auth?${authorization}`, 303);
  const consentPage = new URL(locationOf(http), http.url);
  await browser.get(consentPage.pathname);
  await browser.post(consentPage.pathname, { decision: 'allow', scope: 'locks:read', locks: 'all' }, 303);
  await browser.get(new URL(locationOf(http), http.url).pathname, 303);
  const callback = new URL(locationOf(http));
  assert.equal(callback.origin + callback.pathname, OAUTH_REDIRECT);
  const code = secrets.add('oauth code', 'authorization code', callback.searchParams.get('code') ?? '');

  const basic = (secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const token = (status: number, fields: Record<string, string>, secret = clientSecret) =>
    http.expect(status, 'POST', '/oauth/token', {
      headers: { authorization: basic(secret) },
      form: new URLSearchParams(fields),
    });
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: OAUTH_REDIRECT,
    code_verifier: verifier,
  };
  await token(401, exchange, `${clientSecret}x`);
  // The secret in the form instead (client_secret_post), with a code that is not one.
  await http.expect(400, 'POST', '/oauth/token', {
    form: new URLSearchParams({
      ...exchange,
      code: `${code}x`,
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  const issued = JSON.parse((await token(200, exchange)).body) as {
    access_token: string;
    refresh_token: string;
  };
  const accessToken = secrets.add('oauth token', 'access token', issued.access_token);
  const refreshToken = secrets.add('oauth token', 'refresh token', issued.refresh_token);

  await http.expect(200, 'GET', '/public/locks', { headers: { authorization: `Bearer ${accessToken}` } });
  await http.expect(401, 'GET', '/public/locks', { headers: { authorization: `Bearer ${accessToken}x` } });
  await http.expect(403, 'GET', '/ext/events', { headers: { authorization: accessToken } });

  const refreshed = JSON.parse(
    (await token(200, { grant_type: 'refresh_token', refresh_token: refreshToken })).body,
  ) as { access_token: string; refresh_token: string };
  secrets.add('oauth token', 'refreshed access token', refreshed.access_token);
  secrets.add('oauth token', 'rotated refresh token', refreshed.refresh_token);
  // The spent refresh token again: refused, and the family with it (reuse detection).
  await token(400, { grant_type: 'refresh_token', refresh_token: refreshToken });
  await http.expect(401, 'GET', '/public/locks', {
    headers: { authorization: `Bearer ${refreshed.access_token}` },
  });
  await http.expect(200, 'POST', '/oauth/token/revocation', {
    headers: { authorization: basic(clientSecret) },
    form: new URLSearchParams({ token: refreshed.refresh_token }),
  });
}
