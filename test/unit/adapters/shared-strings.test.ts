import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedStrings } from '../../../src/adapters/stores/sql/shared-strings.ts';

describe('SharedStrings', () => {
  it('answers each value as it was given, null as null', () => {
    const shared = new SharedStrings(4);
    assert.equal(shared.of('owner-1'), 'owner-1');
    assert.equal(shared.of(['owner', '1'].join('-')), 'owner-1');
    assert.equal(shared.ofNullable(null), null);
    assert.equal(shared.size, 1);
  });

  it('holds at most its bound of distinct values, starting afresh past it', () => {
    const shared = new SharedStrings(3);
    for (let i = 0; i < 10; i++) assert.equal(shared.of(`ap-${i}`), `ap-${i}`);
    assert.ok(shared.size <= 3, `held ${shared.size}`);
    assert.equal(shared.of('ap-9'), 'ap-9');
  });
});
