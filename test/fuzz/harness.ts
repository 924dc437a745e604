/**
 * The fuzzing target: a real lockcloud (sandbox mode, standardSeed, real SQLite file, roomy account
 * rate limits so that valid keys reach the handlers while the busiest client address still meets
 * 429 and 403), a webhook receiver on loopback, and the credentials the placeholders stand for. It
 * sends one generated request, checks its answer, and keeps the sandbox usable (a fuzzed reset,
 * clock move or account change is undone before the next request).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITED_ENDPOINTS } from '../../src/domain/rate-limit.ts';
import { fetchDoc, type OpenApi } from '../http/openapi-helpers.ts';
import { authorize, discover, exchange, registerApp, signedIn } from '../support/oauth.ts';
import { OTHER, OWNER, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import type { FuzzRequest } from './requests.ts';
import { type Endpoint, routeTable } from './routes.ts';
import { type Answer, answerProblems } from './shapes.ts';

/** Longest a request may take: the command timeout (2 s here) plus slack for a loaded machine. */
export const ANSWER_TIMEOUT_MS = 15_000;
/** Where the harness's own probes come from: an address the fuzzer never uses. */
const CONTROL_ADDRESS = '127.0.0.250';

export interface Exchange {
  readonly answer: Answer | undefined;
  readonly problems: readonly string[];
}

interface Credentials {
  v1Token: string;
  otherV1Token: string;
  session: string;
  csrf: string;
  /** An OAuth access token of the owner's, for some scopes. */
  accessToken: string;
}

const agents = new Map<string, Agent>();
function agentFor(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    agents.set(address, agent);
  }
  return agent;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** One request over node:http from `from`; resolves with the answer, or rejects (no answer in time). */
function send(
  base: URL,
  req: { method: string; target: string; headers: ReadonlyArray<readonly [string, string]>; body?: Buffer },
  from: string,
): Promise<Answer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of req.headers) {
    const had = headers[name];
    headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  if (req.body !== undefined) headers['content-length'] = String(req.body.length);
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: base.hostname,
        port: Number(base.port),
        method: req.method,
        path: req.target,
        headers,
        localAddress: from,
        agent: agentFor(from),
        timeout: ANSWER_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        // A live stream (GET /ext/events/stream) never ends by itself: its first bytes are its answer.
        const stream = /^text\/event-stream/.test(res.headers['content-type'] ?? '');
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          if (stream) res.destroy();
        });
        if (stream)
          res.on('close', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: flatHeaders(res.headers),
              body: Buffer.concat(chunks),
            }),
          );
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** The request as bytes on a socket: what node:http will not send (raw unicode, lying lengths, chunks). */
function rawBytes(req: FuzzRequest): Buffer {
  let target = req.target;
  try {
    target = decodeURI(req.target);
  } catch {
    // not decodable: sent as generated
  }
  const body = req.body ?? Buffer.alloc(0);
  const lines = [`${req.method} ${target} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  if (req.framing === 'chunked') lines.push('transfer-encoding: chunked');
  else if (req.body !== undefined)
    lines.push(`content-length: ${req.framing === 'short' ? Math.floor(body.length / 2) : body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  if (req.framing !== 'chunked') return Buffer.concat([head, body]);
  const chunk =
    body.length === 0 ? [] : [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')];
  return Buffer.concat([head, ...chunk, Buffer.from('0\r\n\r\n')]);
}

/**
 * Writes the bytes and reads one answer until the server closes (the request says Connection: close).
 * Unlike test/support's rawRequest it does not half-close: Node's server drops a request whose
 * client ended its side before the answer was ready, and real clients wait with their side open.
 */
function sendRaw(base: URL, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(base.port), base.hostname, () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(), ANSWER_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // A live stream never ends by itself: once its head is in, the answer is known.
      const head = Buffer.concat(chunks).toString('latin1');
      if (head.includes('\r\n\r\n') && /\r\ncontent-type: text\/event-stream/i.test(head)) socket.destroy();
    });
    socket.on('error', () => {}); // the server may close while we still write: what it sent counts
    socket.on('close', () => {
      clearTimeout(timer);
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0)
        return reject(new Error(`no HTTP answer: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`));
      const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        headers[name] =
          headers[name] === undefined
            ? line.slice(colon + 1).trim()
            : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
      }
      const length = headers['content-length'];
      const rest = data.subarray(end + 4);
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: length === undefined ? rest : rest.subarray(0, Number(length)),
      });
    });
  });
}

export class FuzzTarget {
  private creds: Credentials = { v1Token: '', otherV1Token: '', session: '', csrf: '', accessToken: '' };
  private readonly tasks: string[] = [];
  private readonly deliveries: string[] = [];
  /** Webhook endpoint ids the server answered (POST /ext/webhook-endpoints). */
  private readonly webhookEndpoints: string[] = [];
  /** Grant ids the server answered (an invitation, a grant list): the seed's share is one. */
  private readonly grants: string[] = [];
  private sinceProbe = 0;
  private picks = 0;
  private upkeep: Promise<void> = Promise.resolve();
  restores = 0;

  private constructor(
    readonly t: TestServer,
    readonly receiver: Receiver,
    readonly endpoints: readonly Endpoint[],
    readonly doc: OpenApi,
    private readonly cleanup: () => void,
  ) {}

  static async start(): Promise<FuzzTarget> {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-fuzz-'));
    const limits = join(dir, 'rate-limits.json');
    // Accounts get all they ask for, and so do commands to a lock, so valid keys reach the handlers.
    // Addresses get little (2 at once, then 1/s) on v3 and /ext: the 32 addresses that share 7
    // requests in 10 stay under it, 127.0.0.1 with the other 3 is throttled and then blocked, and
    // those answers are checked too.
    const roomy = { burst: 1_000_000, per_second: 1_000_000 };
    const tight = { burst: 2, per_second: 1 };
    const endpoints = Object.fromEntries(LIMITED_ENDPOINTS.map((e) => [e, { account: roomy, ip: tight }]));
    // Blocked after 50 refusals in a minute (the default is 100): the block's 403 comes sooner.
    writeFileSync(limits, JSON.stringify({ endpoints, commands: roomy, block: { excess: 50 } }));
    const receiver = await startReceiver({ status: 204 });
    const t = await startServer({ flags: ['--rate-limits', limits, '--command-timeout-ms', '2000'] });
    const doc = await fetchDoc(t);
    const target = new FuzzTarget(t, receiver, routeTable(t.server.http, doc), doc, () =>
      rmSync(dir, { recursive: true, force: true }),
    );
    await target.logIn();
    return target;
  }

  private control(
    method: string,
    target: string,
    headers: Array<readonly [string, string]> = [],
    body?: string,
  ) {
    return send(
      new URL(this.t.url),
      { method, target, headers, ...(body === undefined ? {} : { body: Buffer.from(body) }) },
      CONTROL_ADDRESS,
    );
  }

  private async v1Login(email: string, password: string): Promise<string> {
    const json = JSON.stringify({ email, password });
    const res = await this.control(
      'POST',
      '/v1/accounts/login',
      [['content-type', 'application/json']],
      json,
    );
    const token = (JSON.parse(res.body.toString()) as { authorization?: string }).authorization;
    if (res.status !== 200 || token === undefined)
      throw new Error(`v1 login of ${email}: ${res.status} ${res.body}`);
    return token;
  }

  private async logIn(): Promise<void> {
    const page = await this.control('GET', '/dashboard/login');
    const anon = /lc_anon=([^;]+)/.exec(page.headers['set-cookie'] ?? '')?.[1] ?? '';
    const anonCsrf = /name="_csrf" value="([^"]+)"/.exec(page.body.toString())?.[1] ?? '';
    const form = new URLSearchParams({
      _csrf: anonCsrf,
      email: OWNER,
      password: 'owner-password',
    }).toString();
    const login = await this.control(
      'POST',
      '/dashboard/login',
      [
        ['cookie', `lc_anon=${anon}`],
        ['content-type', 'application/x-www-form-urlencoded'],
      ],
      form,
    );
    const session = /lc_session=([^;]+)/.exec(login.headers['set-cookie'] ?? '')?.[1];
    if (login.status !== 303 || session === undefined) throw new Error(`dashboard login: ${login.status}`);
    const locks = await this.control('GET', '/dashboard/locks', [['cookie', `lc_session=${session}`]]);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(locks.body.toString())?.[1];
    if (csrf === undefined) throw new Error('no CSRF token on the locks page');
    this.creds = {
      v1Token: await this.v1Login(OWNER, 'owner-password'),
      otherV1Token: await this.v1Login(OTHER, 'other-password'),
      session,
      csrf,
      accessToken: await this.accessToken(),
    };
  }

  /**
   * An OAuth access token of the owner's (issue 24) from the real flow: an app registered, the
   * consent given for some scopes, the code exchanged. A reset takes the app away with it, so each
   * log-in makes a new one. Its scopes leave some routes out, which refuse it.
   */
  private async accessToken(): Promise<string> {
    const app = await registerApp(this.t, OWNER);
    const browser = await signedIn(this.t, OWNER, 'owner-password');
    const as = await discover(this.t);
    const { callback, verifier } = await authorize(this.t, browser, as, app, {
      scope: 'locks:read locks:operate events:read',
    });
    return (await exchange(as, app, callback, verifier)).access_token;
  }

  /** Back to the seed (the sandbox's own reset), with fresh credentials. */
  async restore(): Promise<void> {
    const res = await this.control('POST', '/_sim/reset');
    if (res.status !== 204) throw new Error(`sandbox reset answered ${res.status}`);
    this.tasks.length = 0;
    this.deliveries.length = 0;
    this.webhookEndpoints.length = 0;
    this.grants.length = 0;
    this.restores++;
    await this.logIn();
  }

  /** Do the credentials still work? (A fuzzed logout or password change ends them.) */
  async credentialsWork(): Promise<boolean> {
    const checks = await Promise.all([
      this.control('GET', '/public/locks', [['authorization', OWNER_KEY]]),
      this.control('GET', '/v1/locks', [['x-authorization', this.creds.v1Token]]),
      this.control('GET', '/dashboard/api/locks', [['cookie', `lc_session=${this.creds.session}`]]),
      this.control('GET', '/public/locks', [['authorization', `Bearer ${this.creds.accessToken}`]]),
    ]);
    // v3 checks the key before the limits: a 429 to the probes' own address still means the key
    // (or the token) works. A token past its hour on a moved clock does not: a reset renews it.
    return checks.every((c, i) => c.status === 200 || ((i === 0 || i === 3) && c.status === 429));
  }

  private fill(s: string): string {
    // Round-robin, not random: the same requests in the same order fill in the same way.
    const pick = (pool: string[], fallback: string) =>
      pool[this.picks++ % Math.max(pool.length, 1)] ?? fallback;
    return s
      .replaceAll('{{V1_TOKEN}}', this.creds.v1Token)
      .replaceAll('{{OTHER_V1_TOKEN}}', this.creds.otherV1Token)
      .replaceAll('{{SESSION}}', this.creds.session)
      .replaceAll('{{ACCESS_TOKEN}}', this.creds.accessToken)
      .replaceAll('{{CSRF}}', this.creds.csrf)
      .replaceAll('{{HOOK}}', this.receiver.url)
      .replaceAll('{{TASK}}', pick(this.tasks, '00000000-0000-4000-8000-000000000123'))
      .replaceAll('{{DELIVERY}}', pick(this.deliveries, '1'))
      .replaceAll('{{ENDPOINT}}', pick(this.webhookEndpoints, 'we_00000000000000000000000000000000'))
      .replaceAll('{{GRANT}}', pick(this.grants, 'grt_00000000000000000000000000000000'));
  }

  /** The generated request with its placeholders filled in. */
  resolve(req: FuzzRequest): FuzzRequest {
    return {
      ...req,
      target: this.fill(req.target),
      headers: req.headers.map(([n, v]) => [n, this.fill(v)] as const),
      body:
        req.body === undefined ? undefined : Buffer.from(this.fill(req.body.toString('latin1')), 'latin1'),
    };
  }

  /** Sends one request, checks the answer, and keeps the sandbox usable for the next one. */
  async exchange(generated: FuzzRequest): Promise<Exchange> {
    const req = this.resolve(generated);
    let answer: Answer;
    try {
      answer =
        req.via === 'raw'
          ? await sendRaw(new URL(this.t.url), rawBytes(req))
          : await send(new URL(this.t.url), req, req.from);
    } catch (error) {
      return { answer: undefined, problems: [`no answer: ${(error as Error).message}`] };
    }
    const asked = {
      method: req.method,
      target: req.target,
      requestIds: req.headers.filter(([n]) => n === 'x-request-id').map(([, v]) => v),
      raw: req.via === 'raw',
      headBytes: req.target.length + req.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0),
    };
    const problems = answerProblems(this.endpoints, asked, answer);
    this.remember(answer);
    await this.keepUsable(req, answer);
    return { answer, problems };
  }

  private remember(answer: Answer): void {
    if (answer.status >= 300) return;
    const text = answer.body.toString();
    const task = /"task_id":"([^"]+)"/.exec(text)?.[1];
    const delivery = /"delivery_id":"?([^",}]+)/.exec(text)?.[1];
    if (task !== undefined) this.tasks.splice(0, this.tasks.length >= 50 ? 1 : 0, task);
    if (delivery !== undefined) this.deliveries.splice(0, this.deliveries.length >= 50 ? 1 : 0, delivery);
    const endpoint = /"id":"(we_[0-9a-f]{32})"/.exec(text)?.[1];
    if (endpoint !== undefined)
      this.webhookEndpoints.splice(0, this.webhookEndpoints.length >= 10 ? 1 : 0, endpoint);
    for (const [, grant] of text.matchAll(/"id":"(grt_[0-9a-f]{32})"/g))
      if (grant !== undefined && !this.grants.includes(grant))
        this.grants.splice(0, this.grants.length >= 10 ? 1 : 0, grant);
  }

  private async keepUsable(req: FuzzRequest, answer: Answer): Promise<void> {
    const path = req.target.split('?')[0] ?? '';
    const changed =
      answer.status < 400 &&
      req.method === 'POST' &&
      // An added simulated lock (POST /_sim/locks) too: the seed's world is put back after it.
      /^\/(_sim\/(reset|clock|accounts|locks$)|dashboard\/(account|logout|locks\/simulated$))/.test(path);
    if (changed || ++this.sinceProbe >= 25) {
      this.sinceProbe = 0;
      // One at a time, when requests run side by side; a restore can meet a fuzzed password change
      // or reset of its own, so it is tried again.
      const run = this.upkeep.then(async () => {
        for (let attempt = 1; changed || !(await this.credentialsWork()); attempt++) {
          try {
            return await this.restore();
          } catch (error) {
            if (attempt >= 3) throw error;
          }
        }
      });
      this.upkeep = run.catch(() => undefined);
      await run;
    }
  }

  /** The server answers and still serves a valid key after everything the fuzzer sent. */
  async stillAlive(): Promise<string[]> {
    const problems: string[] = [];
    const health = await this.control('GET', '/healthz');
    if (health.status !== 200) problems.push(`GET /healthz answered ${health.status}`);
    await this.restore();
    if (!(await this.credentialsWork())) problems.push('the seeded credentials no longer work after a reset');
    return problems;
  }

  async close(): Promise<void> {
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
    await this.t.close();
    await this.receiver.close();
    this.cleanup();
  }
}
