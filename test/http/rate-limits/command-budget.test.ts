/**
 * Issue 17, finding 7: commands bypassed the command budget through v1. In 10 s v1 control moved a
 * lock 135 times (all 204) while v3 got 19 and then 429. Now one budget per account and lock, spent
 * in the one command use case, holds v3, the partner endpoint, v1 control and the dashboard alike
 * (docs/rate-limits.md, "The command budget"), with the DEFAULT limits unless a test says otherwise.
 *
 * Real time runs under the sandbox clock too, and refills a command a second: every count allows for
 * what the test's own run time gave back, as test/http/rate-limits/block.test.ts does.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS } from '../../../src/domain/rate-limit.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { Commander, pageText, type Sent, SURFACES, type Surface, v1Token } from './command-helpers.ts';
import {
  advance,
  call,
  getLockFrom,
  header,
  limitsFile,
  OTHER_ADDRESS,
  rateLimitFields,
  retryAfter,
  summarize,
} from './helpers.ts';

/** docs/rate-limits.md: 10 commands at once to one lock, then one a second. */
const BURST = 10;
const INTERVAL_MS = 1_000;

const V1_TOO_MANY = { code: 42900, message: 'TooManyRequests' };
const DASHBOARD_MESSAGE = /^Too many commands to this lock\. Try again in [1-9]\d* s\.$/;

/** Each surface's documented answer when the budget refuses: status, body, Retry-After. */
function assertRefusal(sent: Sent, what: string): void {
  const { surface, reply } = sent;
  const at = `${what} (${surface})`;
  assert.equal(reply.status, 429, `${at}: ${JSON.stringify(reply.body)}`);
  const wait = retryAfter(reply);
  assert.ok(wait >= 1 && wait <= INTERVAL_MS / 1000, `${at}: Retry-After ${wait}`);
  switch (surface) {
    case 'v3':
    case 'partner':
      assert.deepEqual(reply.body, { error: 'THROTTLED' }, at);
      break;
    case 'v1':
      assert.deepEqual(reply.body, V1_TOO_MANY, at);
      break;
    case 'dashboard-api': {
      const body = reply.body as { error: string; message: string };
      assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], at);
      assert.equal(body.error, 'THROTTLED', at);
      assert.match(body.message, DASHBOARD_MESSAGE, at);
      assert.equal(body.message, `Too many commands to this lock. Try again in ${wait} s.`, at);
      break;
    }
    case 'dashboard-form':
      assert.match(
        pageText(String(reply.body)),
        new RegExp(`Too many commands to this lock\\. Try again in ${wait} s\\.`),
        at,
      );
      break;
  }
}

/** Sends `next()` until `enough(sent)`; bounded. Returns every answer and the real time it took. */
async function sendUntil(
  next: (i: number) => Promise<Sent>,
  enough: (sent: readonly Sent[]) => boolean,
  max: number,
): Promise<{ sent: Sent[]; ms: number }> {
  const sent: Sent[] = [];
  const started = performance.now();
  for (let i = 0; i < max && !enough(sent); i++) sent.push(await next(i));
  return { sent, ms: performance.now() - started };
}

const refilled = (ms: number) => Math.ceil(ms / INTERVAL_MS);
const statusesOf = (sent: readonly Sent[]) => summarize(sent.map((s) => s.reply.status));
const alternate = (i: number) => (i % 2 === 0 ? 'unlock' : 'lock');

describe('the command budget (default limits)', () => {
  let t: TestServer;
  let owner: Commander;
  beforeEach(async () => {
    t = await startServer();
    owner = await Commander.start(t);
  });
  afterEach(() => t.close());

  it('is 10 commands at once to one lock, then one a second (the documented defaults)', () => {
    assert.deepEqual(DEFAULT_RATE_LIMITS.commands, { burst: BURST, intervalMs: INTERVAL_MS });
  });

  it('a v1 control flood meets it: 10 x 204, then 429 {"code":42900} with Retry-After; the wait lets one more through', async () => {
    const { sent, ms } = await sendUntil(
      (i) => owner.send('v1', LOCK_A, alternate(i)),
      (s) => s.filter((x) => !x.carried).length >= 20,
      60,
    );
    const carried = sent.filter((s) => s.carried).length;
    assert.ok(
      sent.slice(0, BURST).every((s) => s.reply.status === 204),
      `the burst first: ${statusesOf(sent)}`,
    );
    assert.ok(
      carried <= BURST + refilled(ms),
      `${carried} carried out in ${ms.toFixed(0)} ms: ${statusesOf(sent)}`,
    );
    for (const s of sent.filter((x) => !x.carried)) assertRefusal(s, 'v1 flood');

    // Retry-After is right: after it, one command goes through, and the next is refused again.
    const refused = sent.at(-1);
    assert.ok(refused);
    await advance(t, retryAfter(refused.reply));
    assert.equal((await owner.send('v1', LOCK_A, 'lock')).reply.status, 204);
    assertRefusal(await owner.send('v1', LOCK_A, 'unlock'), 'right after the one let through');
  });

  it('one budget over v3, the partner endpoint, v1 and the dashboard (API and form); another lock or account is not held back', async () => {
    // Round robin: every surface spends the same budget, so together they carry out 10 and are refused.
    const { sent, ms } = await sendUntil(
      (i) => owner.send(SURFACES[i % SURFACES.length] as Surface, LOCK_A, alternate(i)),
      (s) => SURFACES.every((surface) => s.filter((x) => x.surface === surface && !x.carried).length >= 2),
      80,
    );
    const carried = sent.filter((s) => s.carried).length;
    const run = sent.map((s) => `${s.surface}:${s.reply.status}`).join(' ');
    assert.ok(
      sent.slice(0, BURST).every((s) => s.carried),
      `the burst first: ${run}`,
    );
    // Separate budgets per surface (or none on v1 and the dashboard) would carry out 5 x 10 or more.
    assert.ok(carried <= BURST + refilled(ms), `${carried} carried out in ${ms.toFixed(0)} ms: ${run}`);
    for (const s of sent.filter((x) => !x.carried)) assertRefusal(s, 'round robin');

    // v3's RateLimit headers still tell its endpoint's buckets, which had room: the budget refused.
    const v3 = sent.filter((s) => s.surface === 'v3' && !s.carried).at(0);
    assert.ok(v3);
    const fields = rateLimitFields(v3.reply);
    const endpoint = DEFAULT_RATE_LIMITS.endpoints['POST /public/lock/{device_id}'].account;
    assert.equal(fields.q, endpoint.burst, header(v3.reply, 'ratelimit-policy'));
    assert.ok(fields.r > 0, `the endpoint had room: ${header(v3.reply, 'ratelimit')}`);

    // The owner's other lock, and another account's lock, each have their own budget.
    for (const surface of SURFACES) {
      const other = await owner.send(surface, LOCK_B, 'lock');
      assert.ok(other.carried, `${surface} on the other lock: ${other.reply.status}`);
    }
    const stranger = await Commander.start(t, OTHER, 'other-password', OTHER_KEY);
    for (const surface of SURFACES) {
      const theirs = await stranger.send(surface, OTHER_LOCK, 'lock');
      assert.ok(theirs.carried, `${surface}, another account: ${theirs.reply.status}`);
    }
  });

  it('a command refused for the lock spends nothing; one that meets a running command spends as one that runs', async () => {
    // Integration off, a low battery, the app holding the lock: 3 x 20 refusals, none from the budget.
    for (const change of [{ integration: false }, { battery: 3 }, { app_open: true }]) {
      await simLockOk(t, LOCK_A, change);
      const statuses: number[] = [];
      for (let i = 0; i < 2 * BURST; i++)
        statuses.push((await owner.send('v1', LOCK_A, 'unlock')).reply.status);
      assert.ok(!statuses.includes(429), `${JSON.stringify(change)}: ${summarize(statuses)}`);
      await simLockOk(t, LOCK_A, { integration: true, battery: 100, app_open: false });
    }
    // A slow command runs; 9 more meet it (50001 LockBusy) and spend the rest of the budget.
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const running = await call(t, `/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'unlock' },
    });
    assert.equal(running.status, 200, JSON.stringify(running.body));
    const busy: number[] = [];
    for (let i = 0; i < BURST - 1; i++) busy.push((await owner.send('v1', LOCK_A, 'lock')).reply.status);
    assert.equal(summarize(busy), `${BURST - 1}x500`);
    assertRefusal(await owner.send('v1', LOCK_A, 'lock'), 'after 1 running and 9 busy');
  });

  it('the dashboard says which budget it is and how long to wait, in the JSON API and on the page', async () => {
    await sendUntil(
      (i) => owner.send('v1', LOCK_A, alternate(i)),
      (s) => s.some((x) => !x.carried),
      40,
    );
    const api = await owner.send('dashboard-api', LOCK_A, 'lock');
    assertRefusal(api, 'JSON API');
    const form = await owner.send('dashboard-form', LOCK_A, 'lock');
    assertRefusal(form, 'form');
    // The page is the locks page with the notice, not an error page.
    assert.match(String(form.reply.body), /<form[^>]+\/dashboard\/locks\/[^"]+\/command/);
  });
});

describe('the command budget: its refusals through v3 count toward the block (a --rate-limits file: blocked after 5 refusals)', () => {
  const file = limitsFile({ block: { excess: 5 } });
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--rate-limits', file.path] });
  });
  after(async () => {
    await t.close();
    file.remove();
  });

  it('v1 spends the budget without a block; then refusals through v3 and the partner endpoint block the address', async () => {
    const owner = await Commander.start(t);
    // v1, which has no address block, spends the budget: its refusals count toward no block.
    await sendUntil(
      (i) => owner.send('v1', LOCK_A, alternate(i)),
      (s) => s.filter((x) => !x.carried).length >= 10,
      40,
    );
    assert.equal((await getLockFrom(t)).status, 200, 'v1 refusals do not block the address');
    // Within their endpoints' limits (10 at once each), v3 and the partner endpoint are refused by
    // the budget alone; the sixth refusal empties the excess and the address is blocked.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const sent = await owner.send(i % 2 === 0 ? 'v3' : 'partner', LOCK_A, alternate(i));
      statuses.push(sent.reply.status);
      if (sent.reply.status === 403) break;
      assertRefusal(sent, `refusal ${i + 1}`);
      assert.ok(rateLimitFields(sent.reply).r > 0, 'the endpoint had room: the budget refused');
    }
    assert.equal(summarize(statuses), '6x429 1x403');
    const blocked = await getLockFrom(t);
    assert.deepEqual([blocked.status, blocked.body], [403, { error: 'ACCESS_DENY' }]);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS)).status, 200, 'only this address is blocked');
  });
});

describe('the command budget: configured, and turned off', () => {
  it('--rate-limits sets it ("commands": 3 at once, then 1/s)', async () => {
    const file = limitsFile({ commands: { burst: 3, per_second: 1 } });
    const t = await startServer({ flags: ['--rate-limits', file.path] });
    try {
      const token = await v1Token(t);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const reply = await call(t, `/v1/locks/${LOCK_A}/control`, {
          method: 'POST',
          json: { type: alternate(i) },
          headers: { 'x-authorization': token },
        });
        statuses.push(reply.status);
      }
      assert.equal(summarize(statuses), '3x204 3x429');
    } finally {
      await t.close();
      file.remove();
    }
  });

  it('--no-rate-limit turns it off: a v1 control flood is never refused', async () => {
    const t = await startServer({ flags: ['--no-rate-limit'] });
    try {
      const token = await v1Token(t);
      const statuses: number[] = [];
      for (let i = 0; i < 3 * BURST; i++) {
        const reply = await call(t, `/v1/locks/${LOCK_A}/control`, {
          method: 'POST',
          json: { type: alternate(i) },
          headers: { 'x-authorization': token },
        });
        statuses.push(reply.status);
      }
      assert.equal(summarize(statuses), `${3 * BURST}x204`);
    } finally {
      await t.close();
    }
  });
});

describe('the command budget is the account’s and the lock’s, whichever surface or address', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('v1 spends it, and v3 from any address then meets it; the other account’s key does not', async () => {
    const owner = await Commander.start(t);
    await sendUntil(
      (i) => owner.send('v1', LOCK_A, alternate(i)),
      (s) => s.some((x) => !x.carried),
      40,
    );
    for (const from of ['127.0.0.1', OTHER_ADDRESS]) {
      const refused = await call(t, `/public/lock/${LOCK_A}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command: 'lock' },
        from,
      });
      assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }], from);
      assert.ok(rateLimitFields(refused).r > 0, `${from}: the endpoint had room, the budget refused`);
    }
    const theirs = await call(t, `/public/lock/${OTHER_LOCK}`, {
      method: 'POST',
      key: OTHER_KEY,
      json: { command: 'lock' },
    });
    assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
  });
});
