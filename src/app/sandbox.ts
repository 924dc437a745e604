import { formatDeviceSecret } from '../domain/access-point.ts';
import { type Account, normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import { SYSTEM_ACTOR } from '../domain/event.ts';
import { type DoorState, initialHealth, type Lock, type NewLock } from '../domain/lock.ts';
import {
  checkNewSimLock,
  type NewSimLock,
  SIM_LOCKS_PER_ACCESS_POINT,
  type SimDeviceState,
} from '../domain/sim-device.ts';
import type { TaskFailure } from '../domain/task.ts';
import { changePassword, markDeleted } from './account-changes.ts';
import type { Commands } from './commands.ts';
import { restoreRenewedDemoCredentials } from './demo.ts';
import { EventLog } from './event-log.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type {
  BrokerPasswordHasher,
  Clock,
  ClockControl,
  Mail,
  Mailbox,
  PasswordHasher,
  RandomSource,
  SecretBox,
  SecretHasher,
  SimulatedLockState,
  Simulator,
  Store,
  StoreSnapshot,
} from './ports.ts';
import type { RateLimits } from './rate-limits.ts';
import { seedLockDefaults, simDeviceOf } from './seed/load.ts';
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
  /** The lock's health: only a lock whose access point speaks device protocol 2 plays it. */
  readonly door?: DoorState | null;
  readonly jammed?: boolean;
  readonly firmware?: string;
}

export interface SimLockView extends SimulatedLockState {
  readonly integration: boolean;
}

/** A simulated lock added to the sandbox: the cloud's lock, its simulated state and its owner. */
export interface AddedSimLock {
  readonly lock: Lock;
  readonly state: SimDeviceState;
  readonly ownerEmail: string;
}

/** The name of an access point the sandbox registers to carry the locks it adds. */
export const ADDED_ACCESS_POINT_NAME = 'Simulated access point';

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
  /**
   * What registering an access point for added locks takes, as the seed's (src/app/seed/load.ts):
   * ids and a secret, its hash for the embedded broker, its seal for the server's simulator, and
   * its hash for an external broker's password file.
   */
  readonly random: RandomSource;
  readonly secrets: SecretHasher;
  readonly secretBox: SecretBox;
  readonly brokerPasswords?: BrokerPasswordHasher;
}

/** What docs/sandbox.md lets tests and integrators do to the simulated world. */
export class Sandbox {
  /** Adds to one account one at a time: two at once would each register an access point. */
  private readonly adding = new KeyedQueue();

  constructor(private readonly deps: SandboxDeps) {}

  /**
   * Adds a simulated lock to a live account, run by this server's simulator as the seed's are, and
   * kept in the store like them: paired with the account's simulated access point (one is
   * registered when it has none with room), announced over the device link, and answered once the
   * cloud has heard it. A reset removes it with everything made after the seed.
   */
  async addLock(email: string, choice: NewSimLock = {}): Promise<AddedSimLock> {
    const chosen = checkNewSimLock(choice);
    if (!this.deps.simulator.runsDevices)
      throw new DomainError(
        'NOT_CONFIGURED',
        'this server runs no simulated devices (--no-simulator): run them with lockcloud sim instead',
      );
    const account = await this.liveAccount(email);
    return this.adding.run(account.id, () => this.pairNewLock(account, chosen));
  }

  private async pairNewLock(account: Account, chosen: NewSimLock): Promise<AddedSimLock> {
    const { store, simulator, random, clock } = this.deps;
    const apId = await this.accessPointWithRoom(account);
    const lock = seedLockDefaults({
      device_id: random.uuid(),
      owner: account.email,
      nickname: chosen.nickname,
      locked: chosen.locked,
      battery: chosen.battery,
      latency_ms: chosen.latencyMs,
    });
    const stored: NewLock = {
      deviceId: lock.device_id,
      serial: lock.serial,
      nickname: lock.nickname,
      ownerId: account.id,
      locked: lock.locked,
      battery: lock.battery,
      responsive: true,
      integration: true,
      accessPoint: true,
      appOpen: false,
      accessPointId: apId,
      createdAt: clock.now(),
    };
    // Stored as the seed stores its locks: the announcement that follows confirms a lock the cloud
    // knows as paired here, rather than adding one it has never seen (its status then unknown).
    await store.locks.insert(stored);
    const state = simDeviceOf(lock, apId);
    await store.simDevices.save(state);
    await simulator.pair(state);
    return {
      lock: (await store.locks.get(stored.deviceId)) ?? { ...initialHealth(stored.battery), ...stored },
      state,
      ownerEmail: account.email,
    };
  }

  /** The account's oldest simulated access point with room for a lock, or a new one. */
  private async accessPointWithRoom(account: Account): Promise<string> {
    const { store, random, secrets, secretBox, brokerPasswords, clock } = this.deps;
    const simulated = new Set((await store.simDevices.listAccessPoints()).map((ap) => ap.id));
    const states = await store.simDevices.list();
    for (const ap of await store.accessPoints.listForAccount(account.id)) {
      if (simulated.has(ap.id) && states.filter((s) => s.apId === ap.id).length < SIM_LOCKS_PER_ACCESS_POINT)
        return ap.id;
    }
    const id = random.uuid();
    const secret = formatDeviceSecret(random.secret(24));
    await store.accessPoints.insert({
      id,
      accountId: account.id,
      name: ADDED_ACCESS_POINT_NAME,
      secretHash: secrets.hash(secret),
      brokerHash: brokerPasswords?.hash(secret) ?? null,
      createdAt: clock.now(),
      online: false,
      lastSeenAt: null,
    });
    await store.simDevices.saveAccessPoint({ id, sealedSecret: secretBox.seal(secret) });
    return id;
  }

  private async liveAccount(email: string): Promise<Account> {
    const account = await this.deps.store.accounts.findByEmail(normalizeEmail(email));
    if (!account || account.deletedAt !== null)
      throw new DomainError('ACCOUNT_NOT_FOUND', `no account has the e-mail ${normalizeEmail(email)}`);
    return account;
  }

  async changeLock(deviceId: string, change: SimLockChange): Promise<SimLockView> {
    const { store, simulator } = this.deps;
    const lock = await store.locks.get(deviceId);
    if (!lock || lock.accessPointId === null) throw new DomainError('LOCK_NOT_FOUND');
    const health = (['door', 'jammed', 'firmware'] as const).find((field) => change[field] !== undefined);
    if (health !== undefined) {
      // Only a device on protocol version 2 has these to play; an older one would not read the change.
      const ap = await store.accessPoints.get(lock.accessPointId);
      if ((ap?.protocolVersion ?? 1) < 2)
        throw new DomainError(
          'INVALID_INPUT',
          `${health}: the lock's access point speaks device protocol version ${ap?.protocolVersion ?? 1}, which has no ${health} (docs/device-protocol.md)`,
          { field: health },
        );
    }
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
      door: change.door,
      jammed: change.jammed,
      firmware: change.firmware,
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
    const eventLog = new EventLog(store.events, clock, this.deps.random);
    const deps = { accounts: store.accounts, passwords, clock, eventLog };
    if (change.password !== undefined)
      await changePassword(deps, account, change.password, { actor: SYSTEM_ACTOR, how: 'admin' });
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
