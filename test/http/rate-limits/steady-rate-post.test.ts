/**
 * docs/decisions.md: "A client that sends one request per second or fewer is never throttled", with the
 * DEFAULT limits, for the endpoint with the tightest ones: a command a second for a simulated hour,
 * each task ended before the next (the sandbox clock moves 1 s between commands).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import { LOCK_A, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { advance, call } from './helpers.ts';

const HOUR = 3_600;

describe('v3 rate limits: one command a second is never throttled (default limits)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('POST /public/lock/{device_id}, a command a second for an hour, each task ended: 3600 x 200', async () => {
    for (let i = 0; i < HOUR; i++) {
      const command = i % 2 === 0 ? 'unlock' : 'lock';
      const sent = await call(t, `/public/lock/${LOCK_A}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command },
      });
      if (sent.status !== 200) assert.fail(`command ${i}: ${sent.status} ${JSON.stringify(sent.body)}`);
      const taskId = (sent.body as { task_id: string }).task_id;
      // The next second; the simulated lock (latency 0) has answered by then. Wait for the task to end.
      await advance(t, 1);
      const ended = await eventually(`the task of command ${i} to end`, async () => {
        const result = await call(t, `/public/action-result?task_id=${taskId}`, { key: OWNER_KEY });
        if (result.status !== 200)
          assert.fail(`result of command ${i}: ${result.status} ${JSON.stringify(result.body)}`);
        const body = result.body as { status: string; successful?: boolean };
        return body.status === 'terminated' && body;
      });
      assert.equal(ended.successful, true, `command ${i}`);
    }
  });
});
