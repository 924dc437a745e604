import { type Account, isEmail, normalizeEmail } from '../../domain/account.ts';
import { DomainError } from '../../domain/errors.ts';
import { passwordProblem } from '../../domain/one-time-code.ts';
import type { AccountStore, Clock, Mailer, PasswordHasher, RandomSource } from '../ports.ts';
import type { OneTimeCodes } from './codes.ts';
import type { Budgets } from './limits.ts';

export interface SignUpDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly codes: OneTimeCodes;
  readonly mailer: Mailer;
  readonly budgets: Budgets;
}

/** Checks an e-mail field; INVALID_INPUT naming it. */
export function requireEmail(email: unknown): string {
  if (typeof email !== 'string' || email.trim() === '')
    throw new DomainError('INVALID_INPUT', 'enter your e-mail address', { field: 'email' });
  if (!isEmail(email.trim()))
    throw new DomainError('INVALID_INPUT', `"${email.trim()}" is not an e-mail address`, { field: 'email' });
  return normalizeEmail(email);
}

/** Checks a new password; INVALID_INPUT naming the field. */
export function requireNewPassword(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || password === '')
    throw new DomainError('INVALID_INPUT', 'enter a password', { field });
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new DomainError('INVALID_INPUT', `the password ${problem}`, { field });
  return password;
}

/**
 * Sign-up with e-mail and password. The answer is the same whether the address is new or taken, so
 * the form does not tell who has an account: the mail does (a code, or "you already have one").
 */
export class SignUp {
  constructor(private readonly deps: SignUpDeps) {}

  async signUp(email: unknown, password: unknown, clientIp: string): Promise<string> {
    const { accounts, passwords, random, clock, codes, budgets } = this.deps;
    await budgets.spend(`signup-ip:${clientIp}`, budgets.limits.requestsPerIp, 'sign-ups from this address');
    const normalized = requireEmail(email);
    const plain = requireNewPassword(password);
    // Hashed before the address is looked up, taken or not: the hash is most of a sign-up's time, and
    // a taken address answering that much sooner would tell who has an account (docs/security.md).
    const passwordHash = await passwords.hash(plain);
    const existing = await accounts.findByEmail(normalized);
    if (existing) {
      await this.tellExisting(existing);
      return normalized;
    }
    const account: Account = {
      id: random.uuid(),
      email: normalized,
      passwordHash,
      verified: false,
      deletedAt: null,
      passwordChangedAt: null,
      createdAt: clock.now(),
    };
    try {
      await accounts.insert(account);
    } catch (error) {
      // Another request took the address since the check: that one's mail is on its way.
      if (await accounts.findByEmail(normalized)) return normalized;
      throw error;
    }
    await codes.send(account, 'signup');
    return normalized;
  }

  /** Proves the mailbox: the account is verified and may log in. */
  async verify(email: unknown, code: unknown, clientIp: string): Promise<void> {
    const normalized = requireEmail(email);
    const account = await this.deps.accounts.findByEmail(normalized);
    if (account?.verified === true && account.deletedAt === null) return;
    if (!account || account.deletedAt !== null)
      throw new DomainError('INVALID_INPUT', 'no code was requested, or it was already used', {
        field: 'code',
      });
    await this.deps.codes.consume(account.id, 'signup', typeof code === 'string' ? code : '', clientIp);
    await this.deps.accounts.update(account.id, { verified: true });
  }

  /** Sends a new verification code to an unverified account; says nothing about other addresses. */
  async resend(email: unknown, clientIp: string): Promise<void> {
    const { budgets } = this.deps;
    await budgets.spend(`signup-ip:${clientIp}`, budgets.limits.requestsPerIp, 'requests from this address');
    const account = await this.deps.accounts.findByEmail(requireEmail(email));
    if (account && !account.verified && account.deletedAt === null)
      this.deps.codes.sendAfterAnswer(account, 'signup');
  }

  private async tellExisting(account: Account): Promise<void> {
    if (account.deletedAt !== null) return;
    if (!account.verified) {
      await this.deps.codes.sendUnlessThrottled(account, 'signup');
      return;
    }
    await this.deps.mailer.send({
      to: account.email,
      subject: 'You already have a lockcloud account',
      text:
        'Someone (hopefully you) tried to sign up to lockcloud with this address, which already has an ' +
        'account. Log in instead, or use "Forgot password" to set a new password.\n',
    });
  }
}
