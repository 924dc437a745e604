/**
 * The v1 black-box tests against V1_ERRORS: every answer they expect is a row of the table, and every
 * code of the table that a v1 endpoint can give (all but 50000, an internal failure, and 50300, a
 * database outage) is expected by at least one of them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { V1_ERRORS } from '../../../src/http/v1/errors.ts';
import { V1 } from './helpers.ts';

// 50000 is an internal failure; 50300 needs the database away, which test/reliability/postgres-restart
// brings about (it expects 50300 from v1 while PostgreSQL is down).
const UNREACHABLE_FROM_OUTSIDE = new Set([50000, 50300]);
const dir = new URL('./', import.meta.url);
const sources = readdirSync(dir)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => readFileSync(new URL(name, dir), 'utf8'));

describe('the v1 tests and V1_ERRORS', () => {
  it('expect only answers of the table', () => {
    for (const [name, { status, body }] of Object.entries(V1)) {
      const row = V1_ERRORS.find(
        (e) => e.code === body.code && e.message === body.message && e.status === status,
      );
      assert.ok(row, `V1.${name} (${status} ${JSON.stringify(body)}) is a row of V1_ERRORS`);
    }
  });

  it('expect every code of the table a v1 endpoint can give, each in some test', () => {
    const expected = new Set(Object.values(V1).map((a) => a.body.code));
    for (const { code } of V1_ERRORS) {
      if (!UNREACHABLE_FROM_OUTSIDE.has(code)) assert.ok(expected.has(code), `code ${code} has a V1 answer`);
    }
    for (const name of Object.keys(V1)) {
      assert.ok(
        sources.some((text) => text.includes(`V1.${name}`)),
        `some test under test/http/v1 expects V1.${name}`,
      );
    }
  });
});
