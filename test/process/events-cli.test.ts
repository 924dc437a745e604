/**
 * `lockcloud events` and `lockcloud locks watch` on the event stream, as subprocesses against a live
 * server in this process: the latest events newest first in words, --json, the filters and the
 * refusals' exit codes; --follow, and watch, through the stream. The stream is served by a relay of
 * the test's own that speaks the wire format (and passes every other request to the real server),
 * so the resume (Last-Event-ID after the server's close) is seen; the last case follows the real
 * route.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Running, startCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import {
  LOCK_A,
  LOCK_B,
  OWNER_KEY,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../support/server.ts';

/** The CLI (src/bin/locks.ts unless `entry` says otherwise) with `url` and the owner's key. */
function start(args: readonly string[], url: string, entry = 'src/bin/locks.ts'): Running {
  return startCli(args, {
    entry: ['--import', 'tsx', entry],
    env: { LOCKCLOUD_URL: url, LOCKCLOUD_API_KEY: OWNER_KEY },
  });
}

interface EventJson {
  id: string;
  type: string;
  device_id: string | null;
}

/**
 * A relay: `/ext/events/stream` answered by `stream` (the nth connection from 0), anything else
 * passed to the real server as it came.
 */
async function relay(
  t: TestServer,
  stream: (n: number, req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; lastEventIds: (string | undefined)[]; server: Server }> {
  const lastEventIds: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/ext/events/stream')) {
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write('retry: 5\n\n');
      stream(lastEventIds.length - 1, req, res);
      return;
    }
    void (async () => {
      const answer = await fetch(t.url + (req.url ?? ''), {
        method: req.method ?? 'GET',
        headers: { authorization: req.headers.authorization ?? '' },
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lastEventIds, server };
}
const frame = (e: unknown) => `id: ${(e as EventJson).id}\nevent: lock_event\ndata: ${JSON.stringify(e)}\n\n`;

describe('lockcloud events, and watch on the stream', () => {
  let t: TestServer;
  let all: EventJson[];
  const relays: Server[] = [];
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    // A v3 unlock of lock A, then a hand turn back.
    const unlocked = await waitForTask(t, await startTask(t, LOCK_A, 'unlock'));
    assert.equal(unlocked.successful, true, `the first unlock: ${JSON.stringify(unlocked)}`);
    await simLockOk(t, LOCK_A, { locked: true });
    const res = await t.request('/ext/events?order=newest-first&limit=500', { key: OWNER_KEY });
    all = ((await res.json()) as { events: EventJson[] }).events;
  });
  after(async () => {
    for (const r of relays) {
      r.closeAllConnections();
      r.close();
    }
    await t?.close();
  });

  it('lists the latest events newest first, in words; --json one event a line; --device, --type, --limit', async () => {
    const text = await start(['events'], t.url).done;
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^TIME +LOCK +TYPE +WHAT$/);
    assert.match(lines[1] ?? '', new RegExp(`^\\S+Z  ${LOCK_A}  lock.locked +Locked by hand$`));
    assert.ok(
      lines.some((l) => /lock\.unlocked +Unlocked by API key \S+… \(v3\)$/.test(l)),
      text.stdout,
    );

    const json = await start(['events', '--json', '--limit', '3', '--type', 'command.'], t.url).done;
    assert.equal(json.code, 0, json.stderr);
    const listed = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as EventJson);
    assert.deepEqual(
      listed.map((e) => e.id),
      all
        .filter((e) => e.type.startsWith('command.'))
        .slice(0, 3)
        .map((e) => e.id),
    );

    const none = await start(['events', '--device', LOCK_B], t.url).done;
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'no events\n');
  });

  it('runs as `lockcloud events`; refusals exit 4 (a bad filter) and 2 (a bad --limit)', async () => {
    const run = await start(['events', '--limit', '1', '--json'], t.url, 'src/bin/cli.ts').done;
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as EventJson).id, all[0]?.id);
    const bad = await start(['events', '--type', 'LOCK!'], t.url).done;
    assert.equal(bad.code, 4, bad.stderr);
    assert.match(bad.stderr, /^lockcloud locks: refused: BAD_PARAMS: type: must be an event type/);
    const limit = await start(['events', '--limit', '0'], t.url).done;
    assert.equal(limit.code, 2, limit.stderr);
  });

  it('--follow prints each event in words as it comes, resuming after the server closes, until SIGINT', async () => {
    const [newest, second] = all;
    const r = await relay(t, (n, _req, res) => {
      if (n === 0) res.end(`${frame(second)}event: close\ndata: {"reason":"too_slow"}\n\n`);
      else res.write(frame(newest));
    });
    relays.push(r.server);
    const running = start(['events', '--follow'], r.url);
    await eventually('two events printed', () => running.stdout().split('\n').length >= 3, 20_000);
    running.kill('SIGINT');
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines[1] ?? '', new RegExp(`^\\S+Z  ${LOCK_A}  Locked by hand$`));
    assert.deepEqual(r.lastEventIds.slice(0, 2), [undefined, second?.id]);
    assert.match(run.stderr, /the server ended the stream: connecting again in \d+ s/);
  });

  it('watch re-reads the locks at each lock event of the stream, resuming after the newest', async () => {
    const newestLockEvent = all.find((e) => e.type.startsWith('lock.'));
    let push: ((e: unknown) => void) | undefined;
    const r = await relay(t, (_n, _req, res) => {
      push = (e) => res.write(frame(e));
    });
    relays.push(r.server);
    const running = start(['watch', '--count', '1'], r.url);
    await eventually(
      'the initial state and the stream',
      () => push !== undefined && running.stdout().split('\n').length >= 3,
      20_000,
    );
    await simLockOk(t, LOCK_A, { locked: false });
    const after = await t.request(`/ext/events?device_id=${LOCK_A}&order=newest-first&limit=1`, {
      key: OWNER_KEY,
    });
    push?.(((await after.json()) as { events: EventJson[] }).events[0]);
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout.trimEnd().split('\n')[2] ?? '',
      new RegExp(`  ${LOCK_A}  Front door  unlocked \\(was locked\\)$`),
    );
    assert.deepEqual(r.lastEventIds, [newestLockEvent?.id]);
    await simLockOk(t, LOCK_A, { locked: true });
  });

  it('--follow against the server itself: a hand turn comes as a line', async () => {
    const running = start(['events', '--follow', '--device', LOCK_B], t.url);
    // The stream starts with what is committed after it opened: turn the lock until a line comes.
    // Each try turns the lock the other way: whatever state earlier tests left it in, it moves.
    let locked = false;
    await eventually(
      'a hand turn printed',
      async () => {
        locked = !locked;
        await simLockOk(t, LOCK_B, { locked });
        return running.stdout().includes('by hand');
      },
      { timeoutMs: 20_000, everyMs: 250 },
    ).catch(async (error: unknown) => {
      running.kill('SIGKILL');
      const run = await running.done;
      throw new Error(`${String(error)}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    });
    running.kill('SIGINT');
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^\\S+Z  ${LOCK_B}  (Locked|Unlocked) by hand$`, 'm'));
  });
});
