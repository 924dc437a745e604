/**
 * The one error pipeline (src/http/error-pipeline.ts), its steps in order, on a Fastify app answered
 * by injection: the route's absence before a bad body, a domain error through the surface's table, a
 * request fault as the bad request (413 for the size), a backend away as 503 with Retry-After, and
 * anything else logged once and answered 500. The dashboard's renderer writes its pages as HTML.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { BackendUnavailableError } from '../../../src/app/unavailable.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { dashboardErrors } from '../../../src/http/dashboard/errors.ts';
import { answerErrorsWith, type ErrorRenderer } from '../../../src/http/error-pipeline.ts';
import { extErrors } from '../../../src/http/ext/errors.ts';
import { v1Errors } from '../../../src/http/v1/errors.ts';
import { v3Errors } from '../../../src/http/v3/errors.ts';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly surface?: string;
}

/** An app whose routes fail in each way the pipeline tells apart, answered by `renderer`. */
async function appAnswering(
  renderer: ErrorRenderer,
  prefix = '',
): Promise<{ app: FastifyInstance; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, bodyLimit: 64, disableRequestLogging: true });
  await app.register(
    async (scope) => {
      answerErrorsWith(scope, renderer);
      scope.get('/domain', async () => {
        throw new DomainError('THROTTLED', 'over the rate limit', { retryAfterSeconds: 9 });
      });
      scope.post(
        '/body',
        { schema: { body: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } } },
        async () => ({ ok: true }),
      );
      scope.get('/away', async () => {
        throw new BackendUnavailableError('database', new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      });
      scope.get('/bug', async () => {
        throw new TypeError('cannot read properties of undefined');
      });
    },
    { prefix },
  );
  return { app, logs };
}

const json = { 'content-type': 'application/json' };

describe('the error pipeline', () => {
  it('answers a route that does not exist 404, even with a body it cannot read', async () => {
    const { app } = await appAnswering(v3Errors);
    const res = await app.inject({ method: 'POST', url: '/nowhere', headers: json, payload: '{not json' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { error: 'NOT_FOUND' });
    const wrongMethod = await app.inject({ method: 'DELETE', url: '/domain' });
    assert.equal(wrongMethod.statusCode, 404);
  });

  it("answers a domain error through the surface's table, with Retry-After where it documents one", async () => {
    const { app } = await appAnswering(v3Errors);
    const res = await app.inject({ method: 'GET', url: '/domain' });
    assert.equal(res.statusCode, 429);
    assert.deepEqual(res.json(), { error: 'THROTTLED' });
    assert.equal(res.headers['retry-after'], '9');
    const v1 = await (await appAnswering(v1Errors)).app.inject({ method: 'GET', url: '/domain' });
    assert.equal(v1.statusCode, 429);
    assert.deepEqual(v1.json(), { code: 42900, message: 'TooManyRequests' });
    assert.equal(v1.headers['retry-after'], '9');
  });

  it("answers a request fault with the surface's bad request, naming it where the surface does", async () => {
    const { app } = await appAnswering(extErrors);
    const bad = await app.inject({ method: 'POST', url: '/body', headers: json, payload: '{}' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), { error: 'BAD_PARAMS', message: "body must have required property 'a'" });
    const notJson = await app.inject({ method: 'POST', url: '/body', headers: json, payload: '{not json' });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().error, 'BAD_PARAMS');
    const tooLarge = await app.inject({
      method: 'POST',
      url: '/body',
      headers: json,
      payload: JSON.stringify({ a: 'x'.repeat(100) }),
    });
    assert.equal(tooLarge.statusCode, 413);
    assert.equal(tooLarge.json().error, 'BAD_PARAMS');
  });

  it('answers a backend away 503 with Retry-After, logged as a warning and not as a failure', async () => {
    const { app, logs } = await appAnswering(v1Errors);
    const res = await app.inject({ method: 'GET', url: '/away' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json(), { code: 50300, message: 'ServiceUnavailable' });
    assert.equal(res.headers['retry-after'], '2');
    assert.deepEqual(
      logs.filter((l) => l.level >= 40).map((l) => [l.level, l.msg]),
      [[40, 'a backend is unavailable: answered 503']],
    );
  });

  it("logs anything else once, naming the surface, and answers the surface's 500", async () => {
    const { app, logs } = await appAnswering(extErrors);
    const res = await app.inject({ method: 'GET', url: '/bug' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'INTERNAL_ERROR' });
    const errors = logs.filter((l) => l.level >= 50);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.msg, 'request failed');
    assert.equal(errors[0]?.surface, 'ext');
  });
});

describe("the dashboard's renderer", () => {
  it('answers its JSON endpoints in JSON and its pages as the problem page, with the same status', async () => {
    const { app } = await appAnswering(dashboardErrors, '/dashboard');
    const api = await app.inject({ method: 'GET', url: '/dashboard/api/nothing' });
    assert.equal(api.statusCode, 404);
    assert.deepEqual(api.json(), { error: 'NOT_FOUND', message: 'There is no such page.' });
    const page = await app.inject({ method: 'GET', url: '/dashboard/nothing' });
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /There is no such page\./);
    const throttled = await app.inject({ method: 'GET', url: '/dashboard/domain' });
    assert.equal(throttled.statusCode, 429);
    assert.equal(throttled.headers['retry-after'], '9');
    assert.match(throttled.body, /Too many attempts\. Try again in 9 s\./);
  });
});
