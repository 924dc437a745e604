/**
 * Dashboard sessions: a random token in an HttpOnly cookie, stored only as a hash. A session ends at
 * its expiry, at logout, and when its account is deleted or its password changes after it began.
 */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** After the API Settings code is confirmed, keys and the webhook may be changed this long. */
export const API_SETTINGS_UNLOCK_MS = 30 * 60 * 1000;

export interface Session {
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** null until the API Settings code is confirmed in this session. */
  readonly apiUnlockedUntil: number | null;
}

export function sessionIsLive(
  session: Pick<Session, 'createdAt' | 'expiresAt'>,
  account: { readonly deletedAt: number | null; readonly passwordChangedAt: number | null },
  now: number,
): boolean {
  if (account.deletedAt !== null || now >= session.expiresAt) return false;
  // A session begun in the same millisecond as the change predates it, as v1 tokens do.
  return account.passwordChangedAt === null || session.createdAt > account.passwordChangedAt;
}

export function apiSettingsUnlocked(session: Pick<Session, 'apiUnlockedUntil'>, now: number): boolean {
  return session.apiUnlockedUntil !== null && now < session.apiUnlockedUntil;
}
