import { normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import type { TaskFailure } from '../domain/task.ts';
import { changePassword, markDeleted } from './account-changes.ts';
import type { Commands } from './commands.ts';
import { restoreRenewedDemoCredentials } from './demo.ts';
import type {
  Clock,
  ClockControl,
  Mail,
  Mailbox,
  PasswordHasher,
  SimulatedLockState,
  Simulator,
  Store,
  StoreSnapshot,
} from './ports.ts';
import type { RateLimits } from './rate-limits.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';

export const SNAPSHOT_META_KEY = 'sandbox.snapshot';

export interface SimLockChange {
  readonly locked?: boolean;
  readonly battery?: number;
  readonly responsive?: boolean;
  readonly integration?: boolean;
  readonly accessPoint?: boolean;
  readonly appOpen?: boolean;
  readonly latencyMs?: number;
  readonly failNext?: TaskFailure | null;
}

export interface SimLockView extends SimulatedLockState {
  readonly integration: boolean;
}

export interface SandboxDeps {
  readonly store: Store;
  readonly simulator: Simulator;
  readonly clock: Clock;
  readonly clockControl: ClockControl;
  readonly commands: Commands;
  readonly passwords: PasswordHasher;
  readonly mailbox: Mailbox;
  readonly rateLimits: RateLimits | undefined;
  /** Webhook messages come due on the clock: a move looks for them at once. */
  readonly dispatcher: Pick<WebhookDispatcher, 'dispatchDue'>;
}

/** What docs/sandbox.md lets tests and integrators do to the simulated world. */
export class Sandbox {
  constructor(private readonly deps: SandboxDeps) {}

  async changeLock(deviceId: string, change: SimLockChange): Promise<SimLockView> {
    const { store, simulator } = this.deps;
    const lock = await store.locks.get(deviceId);
    if (!lock || lock.accessPointId === null) throw new DomainError('LOCK_NOT_FOUND');
    // Integration is the owner's setting, kept by the cloud; the rest is the device's, relayed to it
    // (pairing too: the access point announces the change, and the cloud follows).
    if (change.integration !== undefined)
      await store.locks.update(deviceId, { integration: change.integration });
    const device = await simulator.change(deviceId, lock.accessPointId, {
      locked: change.locked,
      battery: change.battery,
      responsive: change.responsive,
      accessPoint: change.accessPoint,
      appOpen: change.appOpen,
      latencyMs: change.latencyMs,
      failNext: change.failNext,
    });
    return { ...device, integration: change.integration ?? lock.integration };
  }

  async advanceClock(seconds: number): Promise<number> {
    // Stepwise: a device answer due before a task's deadline must end the task before the deadline does.
    const now = await this.deps.clockControl.advance(seconds * 1000);
    // A real-time poll would find the retries the move made due within a second; the answer waits
    // until they have started instead.
    await this.deps.dispatcher.dispatchDue();
    return now;
  }

  now(): number {
    return this.deps.clock.now();
  }

  async changeAccount(email: string, change: { password?: string; deleted?: boolean }): Promise<void> {
    const { store, clock, passwords } = this.deps;
    const account = await store.accounts.findByEmail(normalizeEmail(email));
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    const deps = { accounts: store.accounts, passwords, clock };
    if (change.password !== undefined) await changePassword(deps, account, change.password);
    if (change.deleted === true) await markDeleted(deps, account);
  }

  mailbox(email: string): Promise<Mail[]> {
    return this.deps.mailbox.listFor(normalizeEmail(email));
  }

  /** Saves the state the seed (or the demo) left, for reset to return to. */
  async saveSnapshot(): Promise<void> {
    await this.deps.store.setMeta(SNAPSHOT_META_KEY, JSON.stringify(await this.deps.store.snapshot()));
  }

  async reset(): Promise<void> {
    const { store, simulator, clockControl, commands } = this.deps;
    const saved = await store.getMeta(SNAPSHOT_META_KEY);
    const snapshot: StoreSnapshot = saved === undefined ? {} : (JSON.parse(saved) as StoreSnapshot);
    commands.stop();
    // However the reset ends (the database or Redis away: a 503), the deadlines and the overdue
    // sweep run again; a failed reset used to leave them stopped for the life of the process.
    try {
      clockControl.reset();
      await store.restore(snapshot);
      // The demo's first credentials were shown once; new ones made since (admin) must outlast it.
      await restoreRenewedDemoCredentials(store);
      // Buckets filled on the moved clock would otherwise outlast the reset.
      await this.deps.rateLimits?.clear();
      await simulator.reload();
    } finally {
      commands.start();
    }
  }
}
