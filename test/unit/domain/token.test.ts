import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issuedAfter, TOKEN_LIFETIME_MS, tokenProblem } from '../../../src/domain/token.ts';

const live = { deletedAt: null, passwordChangedAt: null };

describe('tokenProblem', () => {
  it('admits a token until 30 days after issue, not at the instant they end', () => {
    assert.equal(tokenProblem({ issuedAt: 1_000 }, live, 1_000 + TOKEN_LIFETIME_MS - 1), undefined);
    assert.equal(tokenProblem({ issuedAt: 1_000 }, live, 1_000 + TOKEN_LIFETIME_MS), 'EXPIRED');
    assert.equal(TOKEN_LIFETIME_MS, 30 * 86_400_000);
  });

  it('expires tokens dated before or at a password change, not those dated after it', () => {
    const changed = { deletedAt: null, passwordChangedAt: 5_000 };
    assert.equal(tokenProblem({ issuedAt: 4_999 }, changed, 6_000), 'PASSWORD_CHANGED');
    // Same millisecond: the login read the credentials before the change (issuedAfter dates later ones after it).
    assert.equal(tokenProblem({ issuedAt: 5_000 }, changed, 6_000), 'PASSWORD_CHANGED');
    assert.equal(tokenProblem({ issuedAt: 5_001 }, changed, 6_000), undefined);
    assert.equal(tokenProblem({ issuedAt: 7_000 }, changed, 8_000), undefined);
  });

  it('dates a token at the credentials read, and after the password change that read saw', () => {
    assert.equal(issuedAfter(null, 5_000), 5_000);
    assert.equal(issuedAfter(4_000, 5_000), 5_000);
    assert.equal(issuedAfter(5_000, 5_000), 5_001);
    const changed = { deletedAt: null, passwordChangedAt: 5_000 };
    assert.equal(tokenProblem({ issuedAt: issuedAfter(5_000, 5_000) }, changed, 5_000), undefined);
    // A change after the read is dated at or after it: the token it saw ends.
    const later = { deletedAt: null, passwordChangedAt: 6_000 };
    assert.equal(tokenProblem({ issuedAt: issuedAfter(null, 6_000) }, later, 6_100), 'PASSWORD_CHANGED');
  });

  it('puts a deleted account before a password change before expiry', () => {
    const both = { deletedAt: 9_000, passwordChangedAt: 5_000 };
    const old = 0;
    const muchLater = TOKEN_LIFETIME_MS * 2;
    assert.equal(tokenProblem({ issuedAt: old }, both, muchLater), 'ACCOUNT_DELETED');
    assert.equal(
      tokenProblem({ issuedAt: old }, { deletedAt: null, passwordChangedAt: 5_000 }, muchLater),
      'PASSWORD_CHANGED',
    );
  });
});
