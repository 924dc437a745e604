import { DomainError } from '../../domain/errors.ts';
import { changePassword } from '../account-changes.ts';
import type { AccountStore, Clock, PasswordHasher } from '../ports.ts';
import type { OneTimeCodes } from './codes.ts';
import type { Budgets } from './limits.ts';
import type { Sessions } from './sessions.ts';
import { requireEmail, requireNewPassword } from './sign-up.ts';

export interface PasswordResetDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  readonly clock: Clock;
  readonly codes: OneTimeCodes;
  readonly sessions: Sessions;
  readonly budgets: Budgets;
}

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
   * came through the mailbox, so the address is verified too.
   */
  async reset(email: unknown, code: unknown, password: unknown, clientIp: string): Promise<void> {
    const normalized = requireEmail(email);
    const plain = requireNewPassword(password);
    const account = await this.deps.accounts.findByEmail(normalized);
    if (!account || account.deletedAt !== null)
      throw new DomainError('INVALID_INPUT', 'no code was requested, or it was already used', {
        field: 'code',
      });
    await this.deps.codes.consume(account.id, 'reset', typeof code === 'string' ? code : '', clientIp);
    const { accounts, passwords, clock } = this.deps;
    await changePassword({ accounts, passwords, clock }, account, plain);
    if (!account.verified) await accounts.update(account.id, { verified: true });
    await this.deps.sessions.endAll(account.id);
  }
}
