/**
 * The fuzzer's judge must itself fail on what breaks the contract: each answer here is wrong in one
 * way (or right), and answerProblems must say so.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Endpoint } from './routes.ts';
import { type Answer, type Asked, answerProblems } from './shapes.ts';

const ID = '0b2c9a4e-3f1d-4c2b-9a8e-1d2c3b4a5f6e';
const JSON_UTF8 = 'application/json; charset=utf-8';
const LOCKS: Endpoint = {
  name: 'GET /public/locks',
  method: 'GET',
  path: '/public/locks',
  surface: 'v3',
  operation: {
    responses: {
      '200': {
        content: {
          'application/json': {
            schema: {
              type: 'array',
              items: {
                type: 'object',
                required: ['device_id'],
                properties: { device_id: { type: 'string' } },
                additionalProperties: false,
              },
            },
          },
        },
      },
    },
  },
};
const DELIVERIES: Endpoint = {
  name: 'GET /ext/webhook/deliveries',
  method: 'GET',
  path: '/ext/webhook/deliveries',
  surface: 'ext',
  operation: { responses: {} },
};
const RATE = { ratelimit: '"endpoint";r=1;t=1', 'ratelimit-policy': '"endpoint";q=2;w=2' };
const BLOCKED = { ratelimit: '"blocked";r=0;t=1800', 'ratelimit-policy': '"blocked";q=0;w=1800' };

function asked(target: string, method = 'GET', requestIds: string[] = []): Asked {
  return { method, target, requestIds, raw: false, headBytes: target.length };
}
function answer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'x-request-id': ID, 'content-type': JSON_UTF8, ...headers },
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  };
}
const problems = (a: Asked, b: Answer) => answerProblems([LOCKS, DELIVERIES], a, b);

describe('the fuzzer judges answers by the documents', () => {
  it('accepts answers in shape', () => {
    assert.deepEqual(problems(asked('/public/locks'), answer(200, [{ device_id: 'x' }], RATE)), []);
    assert.deepEqual(problems(asked('/public/nope'), answer(404, { error: 'NOT_FOUND' })), []);
    assert.deepEqual(
      problems(asked('/public/locks'), answer(429, { error: 'THROTTLED' }, { ...RATE, 'retry-after': '3' })),
      [],
    );
    assert.deepEqual(
      problems(asked('/v1/locks'), answer(401, { code: 20000, message: 'MissingAuthToken' })),
      [],
    );
    assert.deepEqual(
      problems(
        asked('/v1/locks/x/control', 'POST'),
        answer(500, { code: 50002, message: 'LockUnreachable' }),
      ),
      [],
    );
    assert.deepEqual(
      problems(asked('/ext/webhook'), answer(404, { error: 'NOT_FOUND', message: 'no webhook is set' })),
      [],
    );
    assert.deepEqual(
      problems(asked('/x', 'GET', ['mine']), answer(404, { error: 'NOT_FOUND' }, { 'x-request-id': 'mine' })),
      [],
    );
    // The extension API's limits and block, and v1 control's command budget.
    assert.deepEqual(problems(asked('/ext/webhook/deliveries'), answer(200, [], RATE)), []);
    const blocked = { error: 'ACCESS_DENY', message: 'blocked' };
    assert.deepEqual(
      problems(asked('/ext/webhook/deliveries'), answer(403, blocked, { ...BLOCKED, 'retry-after': '1800' })),
      [],
    );
    // A refusal for a scoped key's or a token's limits does not wait: no Retry-After.
    const scope = { error: 'ACCESS_DENY', message: 'the access token lacks the scope webhooks:manage' };
    assert.deepEqual(problems(asked('/ext/webhook/deliveries'), answer(403, scope, RATE)), []);
    assert.deepEqual(
      problems(
        asked('/v1/locks/x/control', 'POST'),
        answer(429, { code: 42900, message: 'TooManyRequests' }, { 'retry-after': '1' }),
      ),
      [],
    );
  });

  it('refuses each way out of shape', () => {
    const cases: Array<readonly [string, Asked, Answer]> = [
      ['a 500', asked('/public/locks'), answer(500, { error: 'INTERNAL_ERROR' }, RATE)],
      ['a v1 50000', asked('/v1/locks'), answer(500, { code: 50000, message: 'InternalError' })],
      [
        'no id',
        asked('/x'),
        { ...answer(404, { error: 'NOT_FOUND' }), headers: { 'content-type': JSON_UTF8 } },
      ],
      ['the id not echoed', asked('/x', 'GET', ['mine']), answer(404, { error: 'NOT_FOUND' })],
      ['an extra field', asked('/x'), answer(404, { error: 'NOT_FOUND', stack: 'at x' })],
      ['the v3 shape on v1', asked('/v1/x'), answer(404, { error: 'NOT_FOUND' })],
      ['a code of another status', asked('/v1/x'), answer(400, { code: 40400, message: 'NotFound' })],
      ['ext without a message', asked('/ext/webhook'), answer(400, { error: 'BAD_PARAMS' })],
      ['sandbox without a message', asked('/_sim/clock'), answer(400, { error: 'BAD_PARAMS' })],
      ['an HTML error', asked('/public/x'), answer(404, '<html>', { 'content-type': 'text/html' })],
      ['a 429 without Retry-After', asked('/public/locks'), answer(429, { error: 'THROTTLED' }, RATE)],
      ['no RateLimit fields', asked('/public/locks'), answer(200, [{ device_id: 'x' }])],
      ['no RateLimit fields on /ext', asked('/ext/webhook/deliveries'), answer(200, [])],
      [
        'an /ext block without Retry-After',
        asked('/ext/webhook/deliveries'),
        answer(403, { error: 'ACCESS_DENY', message: 'blocked' }, BLOCKED),
      ],
      [
        'an /ext block without its message',
        asked('/ext/webhook/deliveries'),
        answer(403, { error: 'ACCESS_DENY' }, { ...BLOCKED, 'retry-after': '1800' }),
      ],
      [
        'a v1 429 without Retry-After',
        asked('/v1/locks/x/control', 'POST'),
        answer(429, { code: 42900, message: 'TooManyRequests' }),
      ],
      ['a documented answer out of its schema', asked('/public/locks'), answer(200, [{ id: 'x' }], RATE)],
      ['a redirect without Location', asked('/dashboard'), answer(302, '')],
    ];
    for (const [what, a, b] of cases) assert.notDeepEqual(problems(a, b), [], what);
  });

  it('holds the OAuth endpoints to the RFC 6749 error shape, with a page only at the authorization endpoint', () => {
    const oauthError = {
      error: 'invalid_request',
      error_description: 'no client authentication mechanism provided',
    };
    assert.deepEqual(problems(asked('/oauth/token', 'POST'), answer(400, oauthError)), []);
    assert.deepEqual(problems(asked('/oauth/jwks', 'DELETE'), answer(404, { error: 'NOT_FOUND' })), []);
    assert.deepEqual(problems(asked('/oauth/token', 'POST'), answer(400, { ...oauthError, stack: 'x' })), [
      'not an OAuth error (error, and maybe error_description)',
    ]);
    assert.deepEqual(
      problems(asked('/oauth/token', 'POST'), answer(400, { error: 'Bad Request', code: 1 })),
      ['not an OAuth error (error, and maybe error_description)'],
    );
    const page = { 'content-type': 'text/html; charset=utf-8' };
    assert.deepEqual(problems(asked('/oauth/auth?client_id=x'), answer(400, '<!doctype html>', page)), []);
    assert.deepEqual(problems(asked('/oauth/token', 'POST'), answer(400, '<!doctype html>', page)), [
      'an error answered as text/html; charset=utf-8',
      'an error body that is not JSON',
    ]);
    assert.deepEqual(problems(asked('/oauth/token', 'POST'), answer(500, { error: 'server_error' })), [
      'a 500',
    ]);
  });
});
