/**
 * One-time codes sent by e-mail (sign-up, password reset, API Settings). Six digits are guessable,
 * so a code lives briefly, admits a handful of attempts and is stored only as a keyed hash.
 */
export type CodePurpose = 'signup' | 'reset' | 'api-settings';

export const CODE_LIFETIME_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;
export const CODE_DIGITS = 6;

export interface OneTimeCode {
  readonly id: string;
  readonly accountId: string;
  readonly purpose: CodePurpose;
  readonly hash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Every check counts, right or wrong: a right code after the last allowed attempt is still refused. */
  readonly attempts: number;
  readonly usedAt: number | null;
}

export type CodeProblem = 'USED' | 'EXPIRED' | 'EXHAUSTED';

/** Why a stored code can no longer be tried, if it cannot; checked before its attempt is counted. */
export function codeProblem(code: OneTimeCode, now: number): CodeProblem | undefined {
  if (code.usedAt !== null) return 'USED';
  if (now >= code.expiresAt) return 'EXPIRED';
  if (code.attempts >= CODE_MAX_ATTEMPTS) return 'EXHAUSTED';
  return undefined;
}

/** What the person typed, reduced to the digits (people paste "123 456" or "123-456"). */
export function normalizeCode(input: string): string {
  return input.replace(/[\s-]/g, '');
}

export function isCodeShape(value: string): boolean {
  return new RegExp(`^\\d{${CODE_DIGITS}}$`).test(value);
}
