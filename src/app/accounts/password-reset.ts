import { checkFields, DomainError } from '../../domain/errors.ts';
import { changePassword } from '../account-changes.ts';
import type { EventLog } from '../event-log.ts';
import type { AccountStore, Clock, PasswordHasher } from '../ports.ts';
import { type OneTimeCodes, requireCodeShape } from './codes.ts';
import type { Budgets } from './limits.ts';
import type { Sessions } from './sessions.ts';
import { requireEmail, requireNewPassword } from './sign-up.ts';
import { refuseSteadily } from './steady-refusal.ts';

export interface PasswordResetDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  readonly clock: Clock;
  readonly codes: OneTimeCodes;
  readonly sessions: Sessions;
  readonly budgets: Budgets;
  /** Where the new password is recorded (account.password_changed); none: not recorded. */
  readonly eventLog?: EventLog;
}

/** The reset form's one refusal for a code that does not work, whatever the address holds (VERIFY_REFUSAL). */
export const RESET_REFUSAL =
  'this code does not work for this address: check it, or request a new one (a code lasts 10 minutes and allows 5 tries)';

/**
 * "Forgot password", which is also how an account made by social login sets its first password: a
 * code mailed to the address, then a new password. The request answers alike for any address.
 */
export class PasswordReset {
  constructor(private readonly deps: PasswordResetDeps) {}

  async request(email: unknown, clientIp: string): Promise<string> {
    const { budgets } = this.deps;
    await budgets.spend(`reset-ip:${clientIp}`, budgets.limits.requestsPerIp, 'requests from this address');
    const normalized = requireEmail(email);
    const account = await this.deps.accounts.findByEmail(normalized);
    if (account && account.deletedAt === null) this.deps.codes.sendAfterAnswer(account, 'reset');
    return normalized;
  }

  /**
   * Sets the new password: earlier v1 tokens answer 20003 and every dashboard session ends. The code
   * came through the mailbox, so the address is verified too. An address without a live account is
   * checked against no code, with the same work and the same refusal (OneTimeCodes.consume), given
   * at the same time after the form arrived (steady-refusal.ts).
   */
  async reset(email: unknown, code: unknown, password: unknown, clientIp: string): Promise<void> {
    const { accounts, passwords, clock, codes } = this.deps;
    await codes.spendTryFrom(clientIp);
    // What was typed is refused at once, every field together: it says nothing about the address.
    const [normalized, plain] = checkFields(
      () => requireEmail(email),
      () => requireNewPassword(password),
      () => requireCodeShape(code),
    );
    const account = await refuseSteadily(clock, async () => {
      const found = await accounts.findByEmail(normalized);
      const live = found && found.deletedAt === null ? found : undefined;
      await codes.consume(normalized, live, 'reset', code, RESET_REFUSAL);
      // consume() refuses where there is no account (no code to match): this is never reached.
      if (!live) throw new DomainError('INVALID_INPUT', RESET_REFUSAL, { field: 'code' });
      return live;
    });
    await changePassword({ accounts, passwords, clock, eventLog: this.deps.eventLog }, account, plain, {
      actor: { kind: 'account', accountId: account.id },
      how: 'reset',
    });
    if (!account.verified) await accounts.update(account.id, { verified: true });
    await this.deps.sessions.endAll(account.id);
  }
}
