/**
 * The request log (src/http/request-log.ts): one line a request when it completes, at info, with
 * the request id; none above info (a route's failure is logged by the error pipeline, once).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import { RequestLog } from '../../../src/http/request-log.ts';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly method?: string;
  readonly url?: string;
  readonly status?: number;
  readonly ms?: number;
}

async function logsAt(level: string): Promise<LogLine[]> {
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level }, stream), logController: new RequestLog() });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/broken', async () => {
    throw new Error('broken');
  });
  await app.inject({ method: 'GET', url: '/ok', headers: { 'x-request-id': 'r-1' } });
  await app.inject({ method: 'GET', url: '/broken' });
  await app.close();
  return logs.filter((l) => l.msg === 'request' || l.msg === 'request failed');
}

describe('the request log', () => {
  it('writes one line a request at info, with its id, method, path, status and duration', async () => {
    const [ok, broken, ...more] = await logsAt('info');
    assert.deepEqual(more, []);
    assert.equal(ok?.msg, 'request');
    assert.equal(ok?.level, 30);
    assert.deepEqual([ok?.method, ok?.url, ok?.status], ['GET', '/ok', 200]);
    assert.equal(typeof ok?.ms, 'number');
    assert.equal(typeof ok?.reqId, 'string');
    assert.equal(broken?.msg, 'request');
    assert.equal(broken?.status, 500);
  });

  it('above info writes none', async () => {
    assert.deepEqual(await logsAt('warn'), []);
    assert.deepEqual(await logsAt('silent'), []);
  });
});
