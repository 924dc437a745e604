/**
 * Each surface's renderer against its documented table: every domain error code (with and without a
 * known wait, with and without a field), and every other step of the error pipeline, renders to a row
 * of the surface's table in docs/errors.md (test/docs/errors-doc.test.ts holds the tables to the
 * document), with Retry-After only on the rows that document it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode } from '../../../src/domain/errors.ts';
import { DASHBOARD_ERRORS, dashboardErrors, refusalOf } from '../../../src/http/dashboard/errors.ts';
import type { ErrorAnswer, ErrorRenderer } from '../../../src/http/error-pipeline.ts';
import { EXT_ERRORS, extErrors } from '../../../src/http/ext/errors.ts';
import { SANDBOX_ERRORS, sandboxErrors } from '../../../src/http/sandbox/errors.ts';
import { V1_ERRORS, v1Errors } from '../../../src/http/v1/errors.ts';
import { V3_ERRORS, v3Errors } from '../../../src/http/v3/errors.ts';

interface DocRow {
  readonly status: number;
  /** The body as docs/errors.md shows it: `<text>` for a message, `<n>` for a number of seconds. */
  readonly body: string;
  readonly cause: string;
}

interface Surface {
  readonly name: string;
  readonly renderer: ErrorRenderer;
  readonly rows: readonly DocRow[];
}

const withMessage = (error: string) => JSON.stringify({ error, message: '<text>' });
/** The extension API's errors that carry no message (docs/errors.md). */
const EXT_WITHOUT_MESSAGE = new Set(['UNAUTHORIZED', 'INTERNAL_ERROR']);

const SURFACES: readonly Surface[] = [
  {
    name: 'v3',
    renderer: v3Errors,
    rows: V3_ERRORS.map((r) => ({
      status: r.status,
      body: JSON.stringify({ error: r.error }),
      cause: r.cause,
    })),
  },
  {
    name: 'v1',
    renderer: v1Errors,
    rows: V1_ERRORS.map((r) => ({
      status: r.status,
      body: JSON.stringify({ code: r.code, message: r.message }),
      cause: r.cause,
    })),
  },
  {
    name: 'ext',
    renderer: extErrors,
    rows: EXT_ERRORS.map((r) => ({
      status: r.status,
      body: EXT_WITHOUT_MESSAGE.has(r.error) ? JSON.stringify({ error: r.error }) : withMessage(r.error),
      cause: r.cause,
    })),
  },
  {
    name: 'sandbox',
    renderer: sandboxErrors,
    rows: SANDBOX_ERRORS.map((r) => ({ status: r.status, body: withMessage(r.error), cause: r.cause })),
  },
  {
    name: 'dashboard',
    renderer: dashboardErrors,
    rows: DASHBOARD_ERRORS.map((r) => ({ status: r.status, body: withMessage(r.error), cause: r.cause })),
  },
];

const WAIT = 7;

/** The rendered body as the document writes it: messages as `<text>`, the wait in a name as `<n>`. */
function asDocumented(body: object): string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'message' && typeof value === 'string' && !('code' in body)) out[key] = '<text>';
    else if (key === 'error' && typeof value === 'string') out[key] = value.replace(` ${WAIT}`, ' <n>');
    else out[key] = value;
  }
  return JSON.stringify(out);
}

function rowOf(surface: Surface, answer: ErrorAnswer): DocRow | undefined {
  const body = asDocumented(answer.body);
  return surface.rows.find((r) => r.status === answer.status && r.body === body);
}

/** Every domain error the walk renders: each code bare, with a wait, and naming a field. */
function samples(code: DomainErrorCode): DomainError[] {
  return [
    new DomainError(code),
    new DomainError(code, 'something is wrong', { retryAfterSeconds: WAIT }),
    new DomainError(code, 'url: must be http or https', { field: 'url' }),
  ];
}

const request = { method: 'POST', url: '/somewhere' } as FastifyRequest;

for (const surface of SURFACES) {
  describe(`the ${surface.name} error renderer`, () => {
    it('answers every domain error code with a row of its documented table', () => {
      const problems: string[] = [];
      for (const code of DOMAIN_ERROR_CODES) {
        for (const error of samples(code)) {
          const answer = surface.renderer.domain(error);
          const row = rowOf(surface, answer);
          if (!row) problems.push(`${code}: ${answer.status} ${JSON.stringify(answer.body)}`);
          else if (answer.retryAfterSeconds !== undefined && !row.cause.includes('Retry-After'))
            problems.push(
              `${code}: Retry-After on ${answer.status} ${row.body}, a row that does not document it`,
            );
        }
      }
      assert.deepEqual(problems, [], `answers that are not rows of the table:\n${problems.join('\n')}`);
    });

    it('answers the other steps of the pipeline with rows of its table', () => {
      const r = surface.renderer;
      const steps: [string, ErrorAnswer][] = [
        ['no such route', { status: 404, body: r.notFound(request) }],
        ['an unreadable request', { status: 400, body: r.badRequest('body must be object') }],
        ['a body over 16 KiB', { status: 413, body: r.badRequest('request body is too large') }],
        ['a backend away', { status: 503, body: r.unavailable }],
        ['a fault of ours', { status: 500, body: r.internal }],
      ];
      for (const [what, answer] of steps)
        assert.ok(rowOf(surface, answer), `${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    });
  });
}

describe('the answers that carry a known wait', () => {
  it('v3: THROTTLED and BLOCKED in Retry-After, BUSY in the name', () => {
    const wait = { retryAfterSeconds: WAIT };
    assert.equal(v3Errors.domain(new DomainError('THROTTLED', 'x', wait)).retryAfterSeconds, WAIT);
    assert.equal(v3Errors.domain(new DomainError('BLOCKED', 'x', wait)).retryAfterSeconds, WAIT);
    const busy = v3Errors.domain(new DomainError('BUSY', 'x', wait));
    assert.deepEqual(busy, { status: 400, body: { error: `DEVICE_IS_BUSY ${WAIT}` } });
    assert.deepEqual(v3Errors.domain(new DomainError('BUSY')), {
      status: 400,
      body: { error: 'DEVICE_IS_BUSY' },
    });
  });

  it('v1: 42900 and 50001 carry Retry-After; a wait on another answer is not sent', () => {
    const wait = { retryAfterSeconds: WAIT };
    assert.equal(v1Errors.domain(new DomainError('THROTTLED', 'x', wait)).retryAfterSeconds, WAIT);
    assert.equal(v1Errors.domain(new DomainError('BUSY', 'x', wait)).retryAfterSeconds, WAIT);
    assert.equal(v1Errors.domain(new DomainError('LOCK_NOT_FOUND', 'x', wait)).retryAfterSeconds, undefined);
  });

  it('dashboard: a throttled or blocked visitor is told how long to wait, a minute when unknown', () => {
    const blocked = dashboardErrors.domain(new DomainError('BLOCKED', 'x', { retryAfterSeconds: WAIT }));
    assert.equal(blocked.status, 429);
    assert.equal(blocked.retryAfterSeconds, WAIT);
    assert.match((blocked.body as { message: string }).message, /Try again in 7 s\./);
    assert.equal(dashboardErrors.domain(new DomainError('THROTTLED')).retryAfterSeconds, 60);
  });
});

describe('the dashboard', () => {
  const SESSION_CODES: ReadonlySet<DomainErrorCode> = new Set([
    'UNAUTHENTICATED',
    'TOKEN_MISSING',
    'TOKEN_UNKNOWN',
    'TOKEN_EXPIRED',
    'TOKEN_PASSWORD_CHANGED',
  ]);

  it('asks to log in again only for a missing or ended session', () => {
    for (const code of DOMAIN_ERROR_CODES) {
      const { status, body } = dashboardErrors.domain(new DomainError(code, 'a message'));
      const logInAgain = (body as { message: string }).message === 'Log in again.';
      assert.equal(logInAgain, SESSION_CODES.has(code), `${code}: ${status} ${JSON.stringify(body)}`);
    }
  });

  it("shows the use case's sentence for an input problem, next to its field", () => {
    const error = new DomainError('INVALID_INPUT', 'url: must be http or https', { field: 'url' });
    assert.deepEqual(dashboardErrors.domain(error).body, {
      error: 'BAD_PARAMS',
      message: 'Url: must be http or https.',
    });
    assert.equal(refusalOf(error).field, 'url');
  });
});

describe('a missing webhook delivery', () => {
  it('is its own code: 404 on the extension API, not a task', () => {
    const answer = extErrors.domain(
      new DomainError('DELIVERY_NOT_FOUND', 'no such delivery', { field: 'id' }),
    );
    assert.deepEqual(answer, { status: 404, body: { error: 'NOT_FOUND', message: 'no such delivery' } });
  });
});
