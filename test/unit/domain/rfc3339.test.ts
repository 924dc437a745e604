/**
 * RFC 3339 as the access APIs take it: strict, with an offset, real dates only; nothing Date.parse
 * would also take.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRfc3339 } from '../../../src/domain/rfc3339.ts';

describe('parseRfc3339', () => {
  it('answers the instant in any offset', () => {
    const noon = Date.UTC(2026, 4, 1, 12, 0, 0);
    for (const text of [
      '2026-05-01T12:00:00Z',
      '2026-05-01t12:00:00z',
      '2026-05-01T14:00:00+02:00',
      '2026-05-01T06:30:00-05:30',
      '2026-05-01T12:00:00-00:00',
      '2026-05-01T12:00:00.000000000Z',
    ])
      assert.equal(parseRfc3339(text), noon, text);
  });

  it('keeps milliseconds and cuts finer fractions off', () => {
    assert.equal(parseRfc3339('2026-05-01T12:00:00.5Z'), Date.UTC(2026, 4, 1, 12, 0, 0, 500));
    assert.equal(parseRfc3339('2026-05-01T12:00:00.123999Z'), Date.UTC(2026, 4, 1, 12, 0, 0, 123));
  });

  it('takes real dates only, leap days included', () => {
    assert.equal(parseRfc3339('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29));
    assert.equal(parseRfc3339('2026-12-31T23:59:59Z'), Date.UTC(2026, 11, 31, 23, 59, 59));
    assert.equal(parseRfc3339('1970-01-01T00:00:00Z'), 0);
    for (const text of [
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
    ])
      assert.equal(parseRfc3339(text), null, text);
  });

  it('refuses what is not an RFC 3339 date-time with an offset', () => {
    for (const text of [
      '',
      '2026-05-01',
      '2026-05-01T12:00:00',
      '2026-05-01T12:00Z',
      '2026-05-01 12:00:00Z',
      '2026-05-01T24:00:00Z',
      '2026-05-01T12:60:00Z',
      '2026-05-01T12:00:60Z',
      '2026-05-01T12:00:00+24:00',
      '2026-05-01T12:00:00+02:60',
      '2026-05-01T12:00:00+0200',
      '2026-05-01T12:00:00.Z',
      '2026-05-01T12:00:00.1234567890Z',
      ' 2026-05-01T12:00:00Z',
      '2026-05-01T12:00:00Z\n',
      '+002026-05-01T12:00:00Z',
      '1969-12-31T23:59:59Z',
      'Fri, 01 May 2026 12:00:00 GMT',
    ])
      assert.equal(parseRfc3339(text), null, JSON.stringify(text));
  });
});
