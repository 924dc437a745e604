/** E-mail addresses are unique whatever their case: stored and compared in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Deliberately loose: one @, a dot in the domain, no spaces. Stricter patterns reject real addresses.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_SHAPE.test(value);
}

export interface Account {
  readonly id: string;
  readonly email: string;
  /** null for an account created by social login, which has never set a password. */
  readonly passwordHash: string | null;
  readonly verified: boolean;
  readonly deletedAt: number | null;
  /** Tokens issued before this instant are expired (v1 answers 20003). */
  readonly passwordChangedAt: number | null;
  readonly createdAt: number;
}

/**
 * The rule for a password an account is given in operation: at sign-up, a reset or a change in the
 * dashboard, and by `lockcloud admin create-account` and `set-password` (docs/decisions.md). Seeds
 * and the sandbox's account changes are test fixtures and keep their own looser bounds; logging in
 * checks only that a password was sent, so an older, shorter password still works.
 */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 200;

/** Why `password` breaks the rule (to follow "the password "), or undefined when it keeps it. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}
