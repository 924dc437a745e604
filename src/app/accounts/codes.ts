import type { Account } from '../../domain/account.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import {
  CODE_LIFETIME_MS,
  CODE_MAX_ATTEMPTS,
  type CodeProblem,
  type CodePurpose,
  codeProblem,
  isCodeShape,
  normalizeCode,
  type OneTimeCode,
} from '../../domain/one-time-code.ts';
import type { Clock, CodeHasher, CodeStore, Mailer, RandomSource } from '../ports.ts';
import type { AfterAnswer } from './after-answer.ts';
import type { Budgets } from './limits.ts';

export interface CodeDeps {
  readonly codes: CodeStore;
  readonly hasher: CodeHasher;
  readonly mailer: Mailer;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly budgets: Budgets;
  readonly afterAnswer: AfterAnswer;
}

const MAILS: Record<CodePurpose, { subject: string; intro: string }> = {
  signup: {
    subject: 'Your lockcloud verification code',
    intro: 'Welcome to lockcloud. Enter this code to verify your e-mail address:',
  },
  reset: {
    subject: 'Your lockcloud password code',
    intro: 'Someone (hopefully you) asked to set a new lockcloud password. Enter this code to set it:',
  },
  'api-settings': {
    subject: 'Your lockcloud API Settings code',
    intro: 'Enter this code in API Settings to manage your API keys and webhook:',
  },
};

const bad = (message: string) => new DomainError('INVALID_INPUT', message, { field: 'code' });

/** What was typed, if it is a code's shape (6 digits, spaces and dashes aside); INVALID_INPUT if not. */
export function requireCodeShape(input: unknown): string {
  const typed = normalizeCode(typeof input === 'string' ? input : '');
  if (!isCodeShape(typed)) throw bad('the code is the 6 digits from the mail');
  return typed;
}

/** Mails codes and checks them: one live code per account and purpose, 10 minutes, 5 attempts. */
export class OneTimeCodes {
  constructor(private readonly deps: CodeDeps) {}

  async send(account: Pick<Account, 'id' | 'email'>, purpose: CodePurpose): Promise<void> {
    const { codes, hasher, mailer, random, clock, budgets } = this.deps;
    await budgets.spend(`code-send:${account.id}`, budgets.limits.codeSendsPerAccount, 'codes requested');
    const code = hasher.newCode();
    const id = random.uuid();
    const now = clock.now();
    await codes.replace({
      id,
      accountId: account.id,
      purpose,
      hash: hasher.hash(code, id),
      createdAt: now,
      expiresAt: now + CODE_LIFETIME_MS,
      attempts: 0,
      usedAt: null,
    });
    const mail = MAILS[purpose];
    await mailer.send({
      to: account.email,
      subject: mail.subject,
      text: `${mail.intro}\n\n    ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this mail.\n`,
    });
  }

  /**
   * send() for the forms anyone may fill in with any address (sign-up with a taken address): an
   * address over its mail budget gets no mail, and the visitor the same answer as for an address
   * without an account. Refusing with 429 would tell them the address has one.
   */
  async sendUnlessThrottled(account: Pick<Account, 'id' | 'email'>, purpose: CodePurpose): Promise<void> {
    try {
      await this.send(account, purpose);
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'THROTTLED') throw error;
    }
  }

  /**
   * For the forms that do nothing for an address without an account (forgot password, resend): the
   * code is written and mailed after the answer, so the answer takes as long either way. Waiting for
   * it made a known address measurably slower (0.9 ms with the in-memory mailer, bench/login-timing;
   * an SMTP round trip with a real one), and a failing mail server answered an error to known
   * addresses only.
   */
  sendAfterAnswer(account: Pick<Account, 'id' | 'email'>, purpose: CodePurpose): void {
    this.deps.afterAnswer.run(`a ${purpose} code mail`, () => this.sendUnlessThrottled(account, purpose));
  }

  /** Every code form spends this first, whatever it holds: the client address's budget of code checks. */
  spendTryFrom(clientIp: string): Promise<void> {
    const { budgets } = this.deps;
    return budgets.spend(`code-try-ip:${clientIp}`, budgets.limits.codeTriesPerIp, 'code attempts');
  }

  /**
   * Checks a code typed for `email` against the live code of `account` for `purpose`, and uses it
   * up; INVALID_INPUT (field `code`) saying why otherwise, or `refusal` for every why when given (the
   * forms anyone may fill in with any address). `account` is undefined where no code may be checked
   * (no account, a deleted one, a verified one on the verify form): the work is then the same as for
   * a real code, one budget, one lookup, one attempt counted (on a row or on none), one HMAC.
   *
   * The e-mail's budget for this purpose is spent before anything is read, across all its codes and
   * from every address: it is what bounds the chance of guessing (docs/security.md). The code's own
   * attempt is counted before the comparison, so a guesser never gets a sixth try at one code.
   */
  async consume(
    email: string,
    account: Pick<Account, 'id'> | undefined,
    purpose: CodePurpose,
    input: unknown,
    refusal?: string,
  ): Promise<void> {
    const { codes, hasher, clock, budgets } = this.deps;
    const typed = requireCodeShape(input);
    await budgets.spend(
      `code-tries:${purpose}:${email}`,
      budgets.limits.codeTriesPerEmail,
      'code attempts for this address',
    );
    const code = await codes.find(account?.id ?? NOBODY, purpose);
    const problem: Why | undefined = code ? codeProblem(code, clock.now()) : 'MISSING';
    const live = problem === undefined ? code : undefined;
    const counted = await codes.countAttempt(live?.id ?? NOBODY, CODE_MAX_ATTEMPTS);
    const matches = hasher.matches(typed, code?.id ?? NOBODY, code?.hash ?? DECOY_HASH);
    const why = problem ?? (!counted ? 'EXHAUSTED' : matches ? undefined : 'WRONG');
    if (why !== undefined || !live) throw bad(refusal ?? explain(why ?? 'MISSING', code));
    if (!(await codes.use(live.id, clock.now()))) throw bad(refusal ?? explain('USED', code));
  }
}

type Why = CodeProblem | 'MISSING' | 'WRONG';

/** An id no account and no code has: an address with nothing to check is looked up all the same. */
const NOBODY = '00000000-0000-0000-0000-000000000000';
/** What a typed code is compared with when there is no code: the same HMAC work as a real comparison. */
const DECOY_HASH = '0'.repeat(64);

/** Why a code was refused, for the person who owns the account (API Settings, signed in). */
function explain(why: Why, code: OneTimeCode | undefined): string {
  switch (why) {
    case 'MISSING':
      return 'no code was requested, or it was already used: request a new one';
    case 'USED':
      return 'this code was already used: request a new one';
    case 'EXPIRED':
      return 'the code has expired (codes last 10 minutes): request a new one';
    case 'EXHAUSTED':
      return 'too many wrong attempts for this code: request a new one';
    case 'WRONG': {
      const left = CODE_MAX_ATTEMPTS - (code?.attempts ?? 0) - 1;
      return left > 0
        ? `the code is wrong (${left} attempt${left === 1 ? '' : 's'} left)`
        : 'the code is wrong, and that was the last attempt: request a new one';
    }
  }
}
