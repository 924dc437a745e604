import { DomainError } from '../domain/errors.ts';
import type { Origin } from '../domain/event.ts';
import { IDEMPOTENCY_KEY_TTL_MS, idempotencyFingerprint } from '../domain/idempotency.ts';
import type { LockCommand } from '../domain/lock.ts';
import type { Task } from '../domain/task.ts';
import { type Commands, IdempotencyKeyTaken } from './commands.ts';
import type { Clock, IdempotencyClaim, IdempotencyKeyStore, SecretHasher } from './ports.ts';

export interface IdempotentCommandDeps {
  readonly keys: IdempotencyKeyStore;
  readonly commands: Commands;
  readonly clock: Clock;
  /** SHA-256: the key is stored only as its hash (a bounded column; it is not a secret). */
  readonly hasher: SecretHasher;
}

export interface IdempotencyOptions {
  /** The client's Idempotency-Key, already checked (domain/idempotency.ts). */
  readonly key: string;
  /** Which endpoint the request came to: part of what makes two requests the same. */
  readonly endpoint: string;
}

// A key found taken is read back at once; only a record that expires between the two (or is purged)
// sends the loop round again.
const MAX_ROUNDS = 5;

/**
 * Commands with an Idempotency-Key (issue 21, point 5): the account's first request with a key makes
 * the task, every later one with the same key and the same request answers that task's id for 24 h,
 * from any process on the same store. The key's record is made in the same transaction as its task,
 * under a unique constraint on (account, key): two requests racing with one key make one task, the
 * other finds the record once the first commits (on PostgreSQL its insert waits for that commit),
 * and no failure or crash can leave a key without its task or a task of a key without the key. A
 * request refused before its task was made (lock unknown, busy, low battery, over budget) leaves no
 * record: the draft asks that a retry be able to succeed, and nothing happened a retry could repeat.
 */
export class IdempotentCommands {
  constructor(private readonly deps: IdempotentCommandDeps) {}

  /** The task id the command has under this key: made now, or by the key's first request. */
  send(
    accountId: string,
    deviceId: string,
    command: LockCommand,
    origin: Origin,
    { key, endpoint }: IdempotencyOptions,
  ): Promise<string> {
    return this.once(accountId, key, idempotencyFingerprint(endpoint, deviceId, command), (claim) =>
      this.deps.commands.send(accountId, deviceId, command, origin, claim),
    );
  }

  /**
   * The same for a command another use case makes (the /ext command of an owner or a guest,
   * GuestCommands): `make` sends it with the key's record, made in the task's transaction, and
   * throws IdempotencyKeyTaken when the account has the key already. `fingerprint` tells the
   * request (idempotencyFingerprint of its endpoint, lock and command).
   */
  async once(
    accountId: string,
    key: string,
    fingerprint: string,
    make: (claim: IdempotencyClaim) => Promise<Task>,
  ): Promise<string> {
    const { keys, clock } = this.deps;
    const keyHash = this.deps.hasher.hash(key);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = clock.now();
      const record = await keys.get(accountId, keyHash);
      if (record !== undefined && record.expiresAt > now) {
        if (record.fingerprint !== fingerprint)
          throw new DomainError(
            'IDEMPOTENCY_KEY_REUSED',
            'this Idempotency-Key was used for another request',
          );
        return record.taskId;
      }
      try {
        const claim = {
          accountId,
          keyHash,
          fingerprint,
          createdAt: now,
          expiresAt: now + IDEMPOTENCY_KEY_TTL_MS,
        };
        return (await make(claim)).id;
      } catch (error) {
        // Another request with the key made its task between our read and our insert: read it.
        if (error instanceof IdempotencyKeyTaken) continue;
        // Refused before the insert (the budget spent, say) while a request with the same key,
        // come at the same moment, made the task: that task is the answer, not the refusal.
        if (error instanceof DomainError && (await this.madeMeanwhile(accountId, keyHash, now))) continue;
        throw error;
      }
    }
    // Only a key that keeps expiring under our feet gets here (a clock moved by days at once).
    throw new DomainError('BUSY', 'the Idempotency-Key changed while it was read; try again', {
      retryAfterSeconds: 1,
    });
  }

  private async madeMeanwhile(accountId: string, keyHash: string, now: number): Promise<boolean> {
    const record = await this.deps.keys.get(accountId, keyHash);
    return record !== undefined && record.expiresAt > now;
  }

  /** Purge: keys past their 24 h. */
  purge(now: number): Promise<number> {
    return this.deps.keys.purgeExpired(now);
  }
}
