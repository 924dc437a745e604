/** v1 login tokens: opaque random secrets, stored only as hashes, valid 30 days from issue. */
export const TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface LoginToken {
  readonly id: string;
  readonly accountId: string;
  readonly issuedAt: number;
}

export type TokenProblem = 'ACCOUNT_DELETED' | 'PASSWORD_CHANGED' | 'EXPIRED';

/**
 * Why a known token no longer admits its holder, if it does not. The most lasting reason wins: a
 * deleted account over a changed password over plain expiry.
 */
export function tokenProblem(
  token: Pick<LoginToken, 'issuedAt'>,
  account: { readonly deletedAt: number | null; readonly passwordChangedAt: number | null },
  now: number,
): TokenProblem | undefined {
  if (account.deletedAt !== null) return 'ACCOUNT_DELETED';
  if (account.passwordChangedAt !== null && token.issuedAt < account.passwordChangedAt)
    return 'PASSWORD_CHANGED';
  if (now >= token.issuedAt + TOKEN_LIFETIME_MS) return 'EXPIRED';
  return undefined;
}
