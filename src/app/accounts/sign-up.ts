import { type Account, isEmail, normalizeEmail, passwordProblem } from '../../domain/account.ts';
import { checkFields, DomainError } from '../../domain/errors.ts';
import type { AccountStore, Clock, Mailer, PasswordHasher, RandomSource } from '../ports.ts';
import type { AfterAnswer } from './after-answer.ts';
import { type OneTimeCodes, requireCodeShape } from './codes.ts';
import type { Budgets } from './limits.ts';
import { refuseSteadily } from './steady-refusal.ts';

export interface SignUpDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly codes: OneTimeCodes;
  readonly mailer: Mailer;
  readonly budgets: Budgets;
  readonly afterAnswer: AfterAnswer;
}

/**
 * The verify form's one refusal for a code that does not work, whatever the address holds (no
 * account, a deleted, verified or password-less one, no code, a used, expired or exhausted one):
 * telling them apart told who has an account (docs/security.md).
 */
export const VERIFY_REFUSAL =
  'this code does not work for this address: check it, or request a new one (a code lasts 10 minutes and allows 5 tries); an address already verified can log in';

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

  /**
   * Answers once the password is hashed; the account is written and the mail sent after the answer.
   * The hash is most of a sign-up's time and every address gets it; what differs by address (a new
   * account's insert, which mail, none for a deleted account's address) is done where no answer waits
   * for it, so neither the answer nor its time tells who has an account (docs/security.md).
   */
  async signUp(email: unknown, password: unknown, clientIp: string): Promise<string> {
    const { passwords, budgets } = this.deps;
    await budgets.spend(`signup-ip:${clientIp}`, budgets.limits.requestsPerIp, 'sign-ups from this address');
    // Both fields at once: a form shows every mistake, not one per try.
    const [normalized, plain] = checkFields(
      () => requireEmail(email),
      () => requireNewPassword(password),
    );
    const passwordHash = await passwords.hash(plain);
    this.deps.afterAnswer.run('a sign-up', () => this.create(normalized, passwordHash));
    return normalized;
  }

  /**
   * Proves the mailbox: the account is verified and may log in. Only an unverified account has a
   * sign-up code to check; any other address is checked against none, with the same work and the
   * same refusal (OneTimeCodes.consume), given at the same time after the form arrived
   * (steady-refusal.ts).
   */
  async verify(email: unknown, code: unknown, clientIp: string): Promise<void> {
    const { accounts, codes, clock } = this.deps;
    await codes.spendTryFrom(clientIp);
    // What was typed is refused at once: it says nothing about the address.
    const [normalized] = checkFields(
      () => requireEmail(email),
      () => requireCodeShape(code),
    );
    const waiting = await refuseSteadily(clock, async () => {
      const account = await accounts.findByEmail(normalized);
      const unverified = account && account.deletedAt === null && !account.verified ? account : undefined;
      await codes.consume(normalized, unverified, 'signup', code, VERIFY_REFUSAL);
      // consume() refuses where no account waits (no code to match): this is never reached.
      if (!unverified) throw new DomainError('INVALID_INPUT', VERIFY_REFUSAL, { field: 'code' });
      return unverified;
    });
    await accounts.update(waiting.id, { verified: true });
  }

  /** Sends a new verification code to an unverified account; says nothing about other addresses. */
  async resend(email: unknown, clientIp: string): Promise<void> {
    const { budgets } = this.deps;
    await budgets.spend(`signup-ip:${clientIp}`, budgets.limits.requestsPerIp, 'requests from this address');
    const account = await this.deps.accounts.findByEmail(requireEmail(email));
    if (account && !account.verified && account.deletedAt === null)
      this.deps.codes.sendAfterAnswer(account, 'signup');
  }

  private async create(normalized: string, passwordHash: string): Promise<void> {
    const { accounts, random, clock, codes } = this.deps;
    const existing = await accounts.findByEmail(normalized);
    if (existing) return this.tellExisting(existing);
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
      if (await accounts.findByEmail(normalized)) return;
      throw error;
    }
    await codes.send(account, 'signup');
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
