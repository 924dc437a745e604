/**
 * Scoped, expiring API keys: checking a new key's limits (every field the API names), what a key
 * may do at an instant (expiry edge, scopes with operate implying read, lock list), full access for
 * keys from before scopes, and that a key makes keys only within its own limits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  checkKeyLimitsInput,
  FULL_ACCESS,
  hasScope,
  isUnlimited,
  type KeyLimits,
  keyAllows,
  keyCoversLock,
  keyLimitsWithin,
  MAX_KEY_LOCKS,
  SCOPES,
} from '../../../src/domain/scope.ts';

const refused = (field: string) => (error: unknown) => {
  assert.ok(error instanceof DomainError);
  assert.equal(error.code, 'INVALID_INPUT');
  assert.equal(error.details.field, field);
  assert.ok(error.message.startsWith(`${field}: `), error.message);
  return true;
};

const NOW = Date.parse('2026-05-01T12:00:00Z');
const LOCK_A = '8f14e45f-ceea-467a-9575-2b3f5f1d3a01';
const LOCK_B = '8f14e45f-ceea-467a-9575-2b3f5f1d3a02';

describe('checkKeyLimitsInput', () => {
  it('gives full access for absent or null limits, as keys always had', () => {
    assert.deepEqual(checkKeyLimitsInput({}, NOW), FULL_ACCESS);
    assert.deepEqual(checkKeyLimitsInput({ scopes: null, lock_ids: null, expires_at: null }, NOW), {
      scopes: null,
      lockIds: null,
      expiresAt: null,
    });
  });

  it('answers scopes in SCOPES order, the locks as given and the expiry as an instant', () => {
    assert.deepEqual(
      checkKeyLimitsInput(
        {
          scopes: ['keys:manage', 'locks:read'],
          lock_ids: [LOCK_B, LOCK_A],
          expires_at: '2026-12-31T23:00:00-01:00',
        },
        NOW,
      ),
      {
        scopes: ['locks:read', 'keys:manage'],
        lockIds: [LOCK_B, LOCK_A],
        expiresAt: Date.parse('2027-01-01T00:00:00Z'),
      },
    );
    assert.deepEqual(checkKeyLimitsInput({ scopes: [...SCOPES].reverse() }, NOW).scopes, SCOPES);
  });

  it('refuses scopes that are empty, unknown or given twice', () => {
    for (const scopes of [
      [],
      'locks:read',
      ['locks:write'],
      ['Locks:Read'],
      ['locks:read', 'locks:read'],
      [1],
      {},
    ])
      assert.throws(() => checkKeyLimitsInput({ scopes }, NOW), refused('scopes'), JSON.stringify(scopes));
  });

  it('refuses lock ids that are empty, malformed, given twice or too many', () => {
    const many = Array.from({ length: MAX_KEY_LOCKS + 1 }, (_, i) => `lock-${i}`);
    for (const ids of [[], LOCK_A, [LOCK_A, LOCK_A], [''], ['a b'], ['x'.repeat(129)], [7], many])
      assert.throws(
        () => checkKeyLimitsInput({ lock_ids: ids }, NOW),
        refused('lock_ids'),
        String(ids).slice(0, 40),
      );
    assert.equal(checkKeyLimitsInput({ lock_ids: many.slice(1) }, NOW).lockIds?.length, MAX_KEY_LOCKS);
  });

  it('refuses an expiry that is no RFC 3339 time, or not in the future', () => {
    for (const value of ['2027-01-01', '2027-01-01T00:00:00', 'never', 1_900_000_000_000, true])
      assert.throws(
        () => checkKeyLimitsInput({ expires_at: value }, NOW),
        refused('expires_at'),
        String(value),
      );
    assert.throws(
      () => checkKeyLimitsInput({ expires_at: '2026-05-01T12:00:00Z' }, NOW),
      refused('expires_at'),
    );
    assert.throws(
      () => checkKeyLimitsInput({ expires_at: '2026-05-01T13:59:59+02:00' }, NOW),
      refused('expires_at'),
    );
    assert.equal(checkKeyLimitsInput({ expires_at: '2026-05-01T12:00:00.001Z' }, NOW).expiresAt, NOW + 1);
  });

  it('names every wrong field at once', () => {
    assert.throws(
      () => checkKeyLimitsInput({ scopes: [], lock_ids: ['?'], expires_at: 'soon' }, NOW),
      (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.details.field, 'scopes');
        assert.deepEqual(Object.keys(error.details.fields ?? {}), ['scopes', 'lock_ids', 'expires_at']);
        return true;
      },
    );
  });
});

describe('hasScope', () => {
  it('lets locks:operate imply locks:read, and nothing else imply anything', () => {
    const implied = (given: (typeof SCOPES)[number]) => SCOPES.filter((scope) => hasScope([given], scope));
    assert.deepEqual(implied('locks:operate'), ['locks:read', 'locks:operate']);
    assert.deepEqual(implied('locks:read'), ['locks:read']);
    assert.deepEqual(implied('events:read'), ['events:read']);
    assert.deepEqual(implied('webhooks:manage'), ['webhooks:manage']);
    assert.deepEqual(implied('keys:manage'), ['keys:manage']);
    assert.deepEqual(
      SCOPES.filter((scope) => hasScope(null, scope)),
      SCOPES,
    );
  });
});

describe('keyAllows', () => {
  const limited: KeyLimits = {
    scopes: ['locks:operate', 'events:read'],
    lockIds: [LOCK_A],
    expiresAt: NOW + 1000,
  };
  const no = (reason: string) => ({ ok: false, reason });

  it('lets a key from before scopes do everything, on every lock, at any time', () => {
    for (const scope of SCOPES)
      assert.deepEqual(keyAllows(FULL_ACCESS, { scope, deviceId: LOCK_B }, Number.MAX_SAFE_INTEGER), {
        ok: true,
      });
  });

  it('works until expiresAt (excluded), then refuses everything as expired', () => {
    assert.deepEqual(keyAllows(limited, { scope: 'locks:read', deviceId: LOCK_A }, NOW + 999), { ok: true });
    assert.deepEqual(
      keyAllows(limited, { scope: 'locks:read', deviceId: LOCK_A }, NOW + 1000),
      no('expired'),
    );
    assert.deepEqual(
      keyAllows(limited, { scope: 'keys:manage', deviceId: LOCK_B }, NOW + 1000),
      no('expired'),
    );
  });

  it('refuses a scope the key lacks before a lock it lacks', () => {
    assert.deepEqual(keyAllows(limited, { scope: 'webhooks:manage' }, NOW), no('missing_scope'));
    assert.deepEqual(
      keyAllows(limited, { scope: 'keys:manage', deviceId: LOCK_B }, NOW),
      no('missing_scope'),
    );
    assert.deepEqual(
      keyAllows(limited, { scope: 'locks:operate', deviceId: LOCK_B }, NOW),
      no('lock_not_allowed'),
    );
    assert.deepEqual(keyAllows(limited, { scope: 'events:read', deviceId: LOCK_A }, NOW), { ok: true });
  });

  it('passes a request about no single lock; its answer is filtered by keyCoversLock', () => {
    assert.deepEqual(keyAllows(limited, { scope: 'locks:read' }, NOW), { ok: true });
    assert.deepEqual(
      [LOCK_A, LOCK_B].filter((id) => keyCoversLock(limited, id)),
      [LOCK_A],
    );
    assert.deepEqual(
      [LOCK_A, LOCK_B].filter((id) => keyCoversLock(FULL_ACCESS, id)),
      [LOCK_A, LOCK_B],
    );
  });

  it('reads only with the scope for it', () => {
    const readOnly: KeyLimits = { scopes: ['locks:read'], lockIds: null, expiresAt: null };
    assert.deepEqual(
      keyAllows(readOnly, { scope: 'locks:operate', deviceId: LOCK_A }, NOW),
      no('missing_scope'),
    );
    assert.deepEqual(keyAllows(readOnly, { scope: 'events:read' }, NOW), no('missing_scope'));
  });

  it('answers one frozen object per outcome', () => {
    const need = { scope: 'locks:read' as const, deviceId: LOCK_A };
    assert.equal(keyAllows(limited, need, NOW), keyAllows(FULL_ACCESS, need, NOW));
    assert.equal(
      keyAllows(limited, need, NOW + 1000),
      keyAllows(limited, { scope: 'keys:manage' }, NOW + 2000),
    );
    assert.ok(Object.isFrozen(keyAllows(limited, need, NOW + 1000)));
  });
});

describe('keyLimitsWithin', () => {
  const outer: KeyLimits = {
    scopes: ['locks:operate', 'keys:manage'],
    lockIds: [LOCK_A, LOCK_B],
    expiresAt: NOW,
  };

  it('takes limits no wider than those of the key making it', () => {
    assert.equal(keyLimitsWithin(outer, outer), true);
    assert.equal(
      keyLimitsWithin({ scopes: ['locks:read'], lockIds: [LOCK_B], expiresAt: NOW - 1 }, outer),
      true,
    );
    assert.equal(
      keyLimitsWithin({ scopes: ['locks:read'], lockIds: null, expiresAt: null }, FULL_ACCESS),
      true,
    );
    assert.equal(keyLimitsWithin(FULL_ACCESS, FULL_ACCESS), true);
  });

  it('refuses a scope, a lock or a time the maker lacks', () => {
    assert.equal(keyLimitsWithin({ ...outer, scopes: ['events:read'] }, outer), false);
    assert.equal(keyLimitsWithin({ ...outer, scopes: null }, outer), false);
    assert.equal(keyLimitsWithin({ ...outer, lockIds: ['other'] }, outer), false);
    assert.equal(keyLimitsWithin({ ...outer, lockIds: null }, outer), false);
    assert.equal(keyLimitsWithin({ ...outer, expiresAt: NOW + 1 }, outer), false);
    assert.equal(keyLimitsWithin({ ...outer, expiresAt: null }, outer), false);
  });
});

describe('isUnlimited', () => {
  it('is true only for a key with no limit of any kind', () => {
    assert.equal(isUnlimited(FULL_ACCESS), true);
    assert.equal(isUnlimited({ scopes: null, lockIds: null, expiresAt: null }), true);
    assert.equal(isUnlimited({ ...FULL_ACCESS, scopes: ['locks:read'] }), false);
    assert.equal(isUnlimited({ ...FULL_ACCESS, lockIds: ['a'] }), false);
    assert.equal(isUnlimited({ ...FULL_ACCESS, expiresAt: 1 }), false);
  });
});
