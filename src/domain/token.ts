/** v1 login tokens: opaque random secrets, stored only as hashes, valid 30 days from issue. */
export const TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface LoginToken {
  readonly id: string;
  readonly accountId: string;
  readonly issuedAt: number;
}

export type TokenProblem = 'ACCOUNT_DELETED' | 'PASSWORD_CHANGED' | 'EXPIRED';

/**
 * When a token issued from credentials read at `readAt` is dated: at the read, and always after the
 * password change the read saw. A change that lands after the read (while the password is checked,
 * or later) is dated at or after the token, so it ends the token; see tokenProblem.
 */
export function issuedAfter(passwordChangedAt: number | null, readAt: number): number {
  return passwordChangedAt === null ? readAt : Math.max(readAt, passwordChangedAt + 1);
}

/**
 * Why a known token no longer admits its holder, if it does not. The most lasting reason wins: a
 * deleted account over a changed password over plain expiry. A token dated in the same millisecond
 * as a password change predates it (issuedAfter dates every later token after the change).
 */
export function tokenProblem(
  token: Pick<LoginToken, 'issuedAt'>,
  account: { readonly deletedAt: number | null; readonly passwordChangedAt: number | null },
  now: number,
): TokenProblem | undefined {
  if (account.deletedAt !== null) return 'ACCOUNT_DELETED';
  if (account.passwordChangedAt !== null && token.issuedAt <= account.passwordChangedAt)
    return 'PASSWORD_CHANGED';
  if (now >= token.issuedAt + TOKEN_LIFETIME_MS) return 'EXPIRED';
  return undefined;
}
