import type { Account } from '../../domain/account.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import {
  CODE_LIFETIME_MS,
  CODE_MAX_ATTEMPTS,
  type CodePurpose,
  codeProblem,
  isCodeShape,
  normalizeCode,
} from '../../domain/one-time-code.ts';
import type { Clock, CodeHasher, CodeStore, Logger, Mailer, RandomSource } from '../ports.ts';
import type { Budgets } from './limits.ts';

export interface CodeDeps {
  readonly codes: CodeStore;
  readonly hasher: CodeHasher;
  readonly mailer: Mailer;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly budgets: Budgets;
  readonly logger: Logger;
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

/** Mails codes and checks them: one live code per account and purpose, 10 minutes, 5 attempts. */
export class OneTimeCodes {
  /** Code mails still being sent after their answer (sendAfterAnswer). */
  private readonly sending = new Set<Promise<void>>();

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
   * addresses only. Failures are logged; the person asks again.
   */
  sendAfterAnswer(account: Pick<Account, 'id' | 'email'>, purpose: CodePurpose): void {
    // On a timer, not a bare promise nor setImmediate: SQLite writes synchronously, and a send begun
    // in this turn of the event loop (or the next check phase) still held the answer back: a known
    // address stayed 0.2-0.5 ms slower (bench/login-timing). A 0 ms timer runs once it is out.
    const sending = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.sendUnlessThrottled(account, purpose))
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, purpose }, 'a code mail could not be sent');
      })
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
  }

  /** Resolves once the mails of every answer given so far are sent (the sandbox's mailbox waits for it). */
  async sent(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  /**
   * Checks a code and uses it up; INVALID_INPUT (field `code`) saying why otherwise. The attempt is
   * counted before the comparison, so a guesser never gets a sixth try at the same code.
   */
  async consume(accountId: string, purpose: CodePurpose, input: string, clientIp: string): Promise<void> {
    const { codes, hasher, clock, budgets } = this.deps;
    await budgets.spend(`code-try-ip:${clientIp}`, budgets.limits.codeTriesPerIp, 'code attempts');
    const typed = normalizeCode(input);
    if (!isCodeShape(typed)) throw bad('the code is the 6 digits from the mail');
    const code = await codes.find(accountId, purpose);
    if (!code) throw bad('no code was requested, or it was already used: request a new one');
    const problem = codeProblem(code, clock.now());
    if (problem === 'USED') throw bad('this code was already used: request a new one');
    if (problem === 'EXPIRED') throw bad('the code has expired (codes last 10 minutes): request a new one');
    if (problem === 'EXHAUSTED' || !(await codes.countAttempt(code.id, CODE_MAX_ATTEMPTS)))
      throw bad('too many wrong attempts for this code: request a new one');
    if (!hasher.matches(typed, code.id, code.hash)) {
      const left = CODE_MAX_ATTEMPTS - code.attempts - 1;
      throw bad(
        left > 0
          ? `the code is wrong (${left} attempt${left === 1 ? '' : 's'} left)`
          : 'the code is wrong, and that was the last attempt: request a new one',
      );
    }
    if (!(await codes.use(code.id, clock.now()))) throw bad('this code was already used: request a new one');
  }
}
