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
