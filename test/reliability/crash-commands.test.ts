/**
 * Crash safety (issue 11, point 2): a server process with several accounts, keys, locks and webhooks
 * takes a run of commands (v3 and v1 mixed, from concurrent clients) and is killed with SIGKILL in
 * the middle of it. Restarted on the same data directory, it must account for every command it had
 * accepted (its task ended, with a documented result, none left processing), have lost no account,
 * key, lock or webhook setting, and show every lock as its simulated device has it. The commands
 * never sent before the crash then run against the restarted server, so all of them are sent.
 * Every change it acknowledged has its event (issue 21, docs/events.md): each task its request and
 * exactly one end that says how it ended, and each lock's last movement in the log is its state.
 *
 * RELIABILITY_COMMANDS=N sets the run's length (default 1,000); the kill comes after 40 % of them
 * were accepted. Figures are printed, not asserted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import { DELIVERY_LOG_LIMIT } from '../../src/domain/webhook.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { eventually } from '../support/eventually.ts';
import { type ServerProcess, startProcess } from '../support/process.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import {
  ACCOUNTS,
  type Client,
  crashSeed,
  DOCUMENTED_TASK_ERRORS,
  documentedV1Failure,
  documentedV3Refusal,
  KEYS,
  LOCKS,
  type Outcome,
  PASSWORD,
  plan,
  run,
} from './crash-workload.ts';

const COMMANDS = Number(process.env.RELIABILITY_COMMANDS ?? 1000);
const KILL_AFTER_ACCEPTED = Math.floor(COMMANDS * 0.4);
const CONCURRENCY = 16;
const FLAGS = ['--no-rate-limit'];

const accepted = (o: Outcome): boolean =>
  (o.planned.kind === 'v3' && o.taskId !== undefined) || (o.planned.kind === 'v1' && o.status === 204);

async function call(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text
  }
  return { status: res.status, body };
}

const withKey = (key: string) => ({ headers: { authorization: key } });

/** Everything the crash must not lose, as the API and the admin CLI show it. */
async function snapshot(base: string, dataDir: string, tokens: Record<string, string>) {
  const keys: Record<string, unknown> = {};
  for (const account of ACCOUNTS)
    for (const key of KEYS[account] ?? []) keys[key] = await call(base, '/public/locks', withKey(key));
  const webhooks: Record<string, unknown> = {};
  const v1Locks: Record<string, unknown> = {};
  for (const account of ACCOUNTS) {
    webhooks[account] = await call(base, '/ext/webhook', withKey(KEYS[account]?.[0] ?? ''));
    // The v1 list without the state fields (those the commands change).
    const list = await call(base, '/v1/locks', { headers: { 'x-authorization': tokens[account] ?? '' } });
    const locks = (list.body as { locks?: Record<string, unknown>[] }).locks ?? [];
    v1Locks[account] = {
      status: list.status,
      locks: locks.map((l) => [l.device_id, l.nickname, l.api_enabled]),
    };
  }
  const admin = await runAdmin(['accounts', '--json', '--data', dataDir]);
  assert.equal(admin.code, 0, admin.stderr);
  return { keys, webhooks, v1Locks, accounts: JSON.parse(admin.stdout) as unknown };
}

/** The lock as the API has it and as its simulated device has it (POST {} changes nothing). */
async function lockAndDevice(base: string, deviceId: string, key: string) {
  const api = await call(base, `/public/lock/${deviceId}`, withKey(key));
  const sim = await call(base, `/_sim/locks/${deviceId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(api.status, 200, JSON.stringify(api));
  assert.equal(sim.status, 200, JSON.stringify(sim));
  const s = sim.body as { locked: boolean; battery: number; responsive: boolean };
  return { api: api.body, device: { locked: s.locked, battery: s.battery, responsive: s.responsive } };
}

async function everyLockMatchesItsDevice(base: string): Promise<void> {
  for (const lock of LOCKS) {
    const key = KEYS[lock.owner]?.[0] ?? '';
    const { api, device } = await lockAndDevice(base, lock.deviceId, key);
    assert.deepEqual(api, device, `lock ${lock.deviceId}: the API and the device disagree`);
  }
}

function processingTasks(dataDir: string): number {
  const db = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'processing'").get() as {
      n: number;
    };
    return row.n;
  } finally {
    db.close();
  }
}

/**
 * The event log against the store it records, read from the file: every task has its
 * command.requested; every ended task exactly one command.succeeded or command.failed, the one its
 * result says; every lock's latest lock.locked or lock.unlocked is its stored state (a lock never
 * moved has none). Answers the counts, for the diagnostics.
 */
/**
 * The API Settings webhook reads the event log (docs/webhooks.md): once the relay has caught up,
 * each account's webhook log holds one message per lock movement, in the log's order, none twice,
 * and every one of the latest movements the log's bound keeps (DELIVERY_LOG_LIMIT), also for the
 * changes committed just before the kill.
 */
function everyMovementHasItsMessage(dataDir: string, accounts: readonly string[]) {
  const db = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const all = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
    const [relay] = all<{ position: number; head: number }>(
      `SELECT position, (SELECT value FROM event_sequence) AS head FROM webhook_relay`,
    );
    if (!relay || relay.position !== relay.head) return undefined; // not caught up yet
    const counts: Record<string, number> = {};
    for (const email of accounts) {
      const account = all<{ id: string }>('SELECT id FROM accounts WHERE email = ?', email)[0]?.id;
      const moves = all<{ id: string }>(
        `SELECT id FROM events WHERE account_id = ? AND type IN ('lock.locked', 'lock.unlocked')
           AND seq > (SELECT webhook_from FROM webhook_relay) ORDER BY seq`,
        account,
      ).map((e) => `webhook:${e.id}`);
      const messages = all<{ relay_key: string | null }>(
        `SELECT relay_key FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = '' ORDER BY seq`,
        account,
      ).map((m) => m.relay_key);
      assert.ok(messages.length > 0, `${account}: no webhook message`);
      assert.equal(new Set(messages).size, messages.length, `${account}: a movement with two messages`);
      let at = 0;
      for (const key of messages) {
        at = moves.indexOf(key ?? '', at);
        assert.ok(at >= 0, `${account}: ${key} is no movement, or out of the log's order`);
      }
      const kept = new Set(messages);
      const latest = moves.slice(-DELIVERY_LOG_LIMIT).filter((key) => !kept.has(key));
      assert.deepEqual(latest, [], `${account}: movements without their message`);
      counts[email] = messages.length;
    }
    return counts;
  } finally {
    db.close();
  }
}

function everyChangeHasItsEvent(dataDir: string, initiallyLocked: ReadonlyMap<string, boolean>) {
  const db = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const all = <T>(sql: string) => db.prepare(sql).all() as T[];
    const unrequested = all<{ id: string }>(
      `SELECT id FROM tasks t WHERE NOT EXISTS
         (SELECT 1 FROM events e WHERE e.task_id = t.id AND e.type = 'command.requested')`,
    );
    assert.deepEqual(unrequested, [], 'tasks without their command.requested event');
    const ends = all<{
      id: string;
      successful: number;
      error: string | null;
      n: number;
      types: string;
      data: string;
    }>(
      `SELECT t.id, t.successful, t.error, count(e.id) AS n, group_concat(e.type) AS types, max(e.data) AS data
         FROM tasks t LEFT JOIN events e
           ON e.task_id = t.id AND e.type IN ('command.succeeded', 'command.failed')
        WHERE t.status = 'terminated' GROUP BY t.id`,
    );
    for (const end of ends) {
      assert.equal(end.n, 1, `task ${end.id}: ${end.n} end events (${end.types})`);
      if (end.successful === 1) assert.equal(end.types, 'command.succeeded', `task ${end.id}`);
      else {
        assert.equal(end.types, 'command.failed', `task ${end.id}`);
        assert.equal((JSON.parse(end.data) as { reason?: string }).reason, end.error, `task ${end.id}`);
      }
    }
    const locks = all<{ device_id: string; locked: number; last: string | null }>(
      `SELECT l.device_id, l.locked,
              (SELECT e.type FROM events e WHERE e.device_id = l.device_id
                  AND e.type IN ('lock.locked', 'lock.unlocked') ORDER BY e.id DESC LIMIT 1) AS last
         FROM locks l`,
    );
    let moved = 0;
    for (const lock of locks) {
      if (lock.last === null) {
        assert.equal(
          lock.locked === 1,
          initiallyLocked.get(lock.device_id),
          `${lock.device_id}: never moved`,
        );
        continue;
      }
      moved++;
      assert.equal(
        lock.last,
        lock.locked === 1 ? 'lock.locked' : 'lock.unlocked',
        `${lock.device_id}: its last movement in the log is not its state`,
      );
    }
    const events = all<{ n: number }>('SELECT count(*) AS n FROM events')[0]?.n ?? 0;
    return { tasksEnded: ends.length, locksMoved: moved, events };
  } finally {
    db.close();
  }
}

describe('kill -9 during a run of commands', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-crash-'));
  let receiver: Receiver;
  let server: ServerProcess | undefined;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await server?.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${COMMANDS} commands, killed after ${KILL_AFTER_ACCEPTED} accepted: nothing accepted or stored is lost`, async (c) => {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(crashSeed(receiver.url)));
    const first = await startProcess(['--data', dataDir, '--seed', seedFile, ...FLAGS]);
    server = first;
    const tokens: Record<string, string> = {};
    for (const email of ACCOUNTS) {
      const login = await call(first.url, '/v1/accounts/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD(email) }),
      });
      assert.equal(login.status, 200, JSON.stringify(login));
      tokens[email] = (login.body as { authorization: string }).authorization;
    }
    const before = await snapshot(first.url, dataDir, tokens);
    let base = first.url;
    const client: Client = { url: () => base, tokens };

    // Beside the commands, account 3's webhook is set over and over: the last accepted setting (or the
    // one in flight at the kill) must be the one found after the restart.
    let webhooksSet = 0;
    let lastSet = -1;
    let killed = false;
    const hookUrl = (n: number) => `${receiver.url}/a3/${n}/{device_id}/{state}`;
    const settingWebhooks = (async () => {
      for (let n = 0; !killed; n++) {
        webhooksSet = n;
        const put = await call(base, '/ext/webhook', {
          method: 'PUT',
          headers: {
            authorization: KEYS[ACCOUNTS[3] as string]?.[0] ?? '',
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            url: hookUrl(n),
            method: n % 2 === 0 ? 'POST' : 'GET',
            retries: n % 3 === 0,
          }),
        }).catch(() => undefined);
        if (put === undefined) return;
        assert.equal(put.status, 200, JSON.stringify(put));
        lastSet = n;
        // Pacing, not waiting for anything: a change every 20 ms or so while the commands run.
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const planned = plan(COMMANDS);
    let kill: Promise<void> | undefined;
    const started = performance.now();
    const firstRun = await run(client, planned, CONCURRENCY, (_o, all) => {
      if (kill || all.filter(accepted).length < KILL_AFTER_ACCEPTED) return false;
      kill = first.kill9().then(() => {
        killed = true;
      });
      return true;
    });
    await kill;
    await settingWebhooks;
    const runMs = performance.now() - started;
    assert.ok(kill, 'the run ended before the kill');

    // Every answer the clients got before the crash is a documented one.
    for (const o of firstRun.outcomes) {
      if (o.status === 0 || accepted(o)) continue;
      const ok =
        o.planned.kind === 'v3'
          ? documentedV3Refusal(o.status, o.body)
          : documentedV1Failure(o.status, o.body);
      assert.ok(
        ok,
        `#${o.planned.n} ${o.planned.kind} ${o.planned.command}: ${o.status} ${JSON.stringify(o.body)}`,
      );
    }

    const restarting = performance.now();
    const second = await startProcess(['--data', dataDir, ...FLAGS]);
    server = second;
    base = second.url;
    const restartMs = performance.now() - restarting;

    // Every accepted v3 command has a task that ended, as it had been read before the crash if it was.
    const counts: Record<string, number> = {};
    for (const o of firstRun.outcomes.filter((x) => x.taskId !== undefined)) {
      const key = KEYS[o.planned.account]?.[0] ?? '';
      const { status, body } = await call(base, `/public/action-result?task_id=${o.taskId}`, withKey(key));
      assert.equal(status, 200, `task ${o.taskId}: ${JSON.stringify(body)}`);
      const ended = body as Record<string, unknown>;
      assert.equal(
        ended.status,
        'terminated',
        `task ${o.taskId} of #${o.planned.n}: ${JSON.stringify(ended)}`,
      );
      if (o.endedBefore) assert.deepEqual(ended, o.endedBefore, `task ${o.taskId} changed its result`);
      else
        assert.ok(
          ended.successful === true || DOCUMENTED_TASK_ERRORS.has(String(ended.error)),
          JSON.stringify(ended),
        );
      const outcome = ended.successful === true ? 'success' : String(ended.error);
      const label = `${o.endedBefore ? 'read before' : 'read after'} the crash: ${outcome}`;
      counts[label] = (counts[label] ?? 0) + 1;
    }
    assert.equal(processingTasks(dataDir), 0, 'a task is still processing after the restart');
    const initiallyLocked = new Map(
      (crashSeed(receiver.url).locks ?? []).map((l) => [l.device_id, l.locked !== false]),
    );
    const logAfterCrash = everyChangeHasItsEvent(dataDir, initiallyLocked);

    // Nothing stored is lost; the login tokens issued before the crash still work.
    const afterCrash = await snapshot(base, dataDir, tokens);
    const { webhooks: hooksAfter, ...restAfter } = afterCrash;
    const { webhooks: hooksBefore, ...restBefore } = before;
    assert.deepEqual(restAfter, restBefore);
    for (const account of ACCOUNTS.slice(0, 3))
      assert.deepEqual(hooksAfter[account], hooksBefore[account], account);
    const hook3 = (hooksAfter[ACCOUNTS[3] as string] as { status: number; body: { url: string } }).body;
    assert.ok(
      [lastSet, webhooksSet].map(hookUrl).includes(hook3.url),
      `account 3's webhook ${hook3.url}; last accepted #${lastSet}, in flight #${webhooksSet}`,
    );

    // The locks are as their devices have them.
    await everyLockMatchesItsDevice(base);

    // The commands never sent run against the restarted server; then nothing is processing and the
    // locks still match their devices.
    const secondRun = await run(client, firstRun.notStarted, CONCURRENCY);
    for (const o of secondRun.outcomes) {
      assert.notEqual(o.status, 0, `#${o.planned.n} got no answer from the restarted server`);
      if (o.taskId !== undefined) {
        assert.ok(o.endedBefore, `#${o.planned.n}: task ${o.taskId} did not end`);
        continue;
      }
      if (accepted(o)) continue;
      const ok =
        o.planned.kind === 'v3'
          ? documentedV3Refusal(o.status, o.body)
          : documentedV1Failure(o.status, o.body);
      assert.ok(ok, `#${o.planned.n} after the restart: ${o.status} ${JSON.stringify(o.body)}`);
    }
    assert.equal(processingTasks(dataDir), 0);
    await everyLockMatchesItsDevice(base);
    const logAtEnd = everyChangeHasItsEvent(dataDir, initiallyLocked);

    // Webhooks: each movement has its message, nothing is left being sent, new changes are delivered.
    let messages: Record<string, number> | undefined;
    await eventually(
      'the webhook relay caught up with the log',
      async () => {
        messages = everyMovementHasItsMessage(dataDir, ACCOUNTS.slice(0, 2));
        return messages !== undefined;
      },
      { timeoutMs: 15_000, everyMs: 50 },
    );
    for (const account of ACCOUNTS.slice(0, 2)) {
      const key = KEYS[account]?.[0] ?? '';
      let busy: unknown[] = [];
      await eventually(
        `${account}: no delivery being sent`,
        async () => {
          const log = (await call(base, '/ext/webhook/deliveries?limit=500', withKey(key))).body as {
            status: string;
            attempts: number;
          }[];
          busy = log.filter((e) => e.status === 'sending' || (e.status === 'pending' && e.attempts === 0));
          return busy.length === 0;
        },
        { timeoutMs: 15_000, everyMs: 20 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(busy.slice(0, 3))}`);
      });
    }

    const tally = (list: readonly Outcome[]) => {
      const t: Record<string, number> = {};
      for (const o of list) {
        const k = `${o.planned.kind} ${o.status === 0 ? 'no answer' : accepted(o) ? 'accepted' : `${o.status} ${JSON.stringify(o.body)}`}`;
        t[k] = (t[k] ?? 0) + 1;
      }
      return t;
    };
    c.diagnostic(
      `first run: ${firstRun.outcomes.length} answered or cut off in ${Math.round(runMs)} ms: ${JSON.stringify(tally(firstRun.outcomes))}`,
    );
    c.diagnostic(`accepted v3 tasks after the restart: ${JSON.stringify(counts)}`);
    c.diagnostic(
      `event log after the restart: ${JSON.stringify(logAfterCrash)}; at the end: ${JSON.stringify(logAtEnd)}`,
    );
    c.diagnostic(`restart to listening: ${Math.round(restartMs)} ms; webhook settings made: ${lastSet + 1}`);
    c.diagnostic(`webhook messages retained, one per movement: ${JSON.stringify(messages)}`);
    c.diagnostic(
      `second run: ${secondRun.outcomes.length} commands: ${JSON.stringify(tally(secondRun.outcomes))}`,
    );
  });
});
