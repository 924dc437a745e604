import { type AnnouncedLock, planPairing } from '../domain/access-point.ts';
import { DEVICE_ACTOR } from '../domain/event.ts';
import type { Lock, LockReport, ReportMark } from '../domain/lock.ts';
import type { Commands } from './commands.ts';
import type { DeviceReports } from './device-reports.ts';
import type { EventLog } from './event-log.ts';
import type {
  AccessPointInfo,
  AccessPointStore,
  AccountStore,
  Clock,
  DeviceListener,
  DeviceResult,
  LockStore,
  Logger,
} from './ports.ts';

export interface DeviceLinkDeps {
  readonly locks: LockStore;
  readonly accessPoints: AccessPointStore;
  readonly accounts: AccountStore;
  readonly reports: DeviceReports;
  readonly commands: Commands;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where an access point going online or offline is recorded; none: not recorded (unit tests). */
  readonly eventLog?: EventLog;
}

/**
 * How often an access point's last_seen_at is written for its lock reports: at most once in this
 * long per access point and process, so a busy access point costs no write per message. Its status
 * messages always write it.
 */
export const LAST_SEEN_EVERY_MS = 30_000;

/**
 * What the cloud does with the devices' news. The gateway has checked the protocol and put each
 * access point's messages in order; here every message is checked against ownership: an access point
 * speaks only for the locks paired with it, and pairing never crosses accounts.
 */
export class DeviceLink implements DeviceListener {
  /** When this process last wrote each access point's last_seen_at. */
  private readonly seenWritten = new Map<string, number>();

  constructor(private readonly deps: DeviceLinkDeps) {}

  async accessPointStatus(apId: string, online: boolean, info?: AccessPointInfo): Promise<void> {
    const { accessPoints, locks, reports, clock } = this.deps;
    if (!(await accessPoints.get(apId))) return this.drop(apId, 'status from an unregistered access point');
    const log = this.deps.eventLog;
    await accessPoints.setOnline(
      apId,
      online,
      clock.now(),
      log &&
        ((ap) =>
          log.stampAll([
            {
              type: online ? 'access_point.online' : 'access_point.offline',
              accountId: ap.accountId,
              deviceId: null,
              actor: DEVICE_ACTOR,
              method: null,
              taskId: null,
              data: { access_point_id: ap.id, name: ap.name },
            },
          ])),
      info,
    );
    this.seenWritten.set(apId, clock.now());
    if (online) return; // its state reports follow and say which locks are in reach
    const paired = (await locks.listByAccessPoint(apId)).filter((lock) => lock.accessPoint);
    for (const lock of paired) await reports.apply(lock.deviceId, { responsive: false });
    await this.deps.commands.failRunningOn(paired.map((lock) => lock.deviceId));
  }

  async pairedLocks(apId: string, announced: readonly AnnouncedLock[]): Promise<void> {
    const { accessPoints, locks, logger, clock } = this.deps;
    const ap = await accessPoints.get(apId);
    if (!ap) return this.drop(apId, 'pairing from an unregistered access point');
    // A deleted account's locks were released: its access points bring none back.
    if ((await this.deps.accounts.findById(ap.accountId))?.deletedAt !== null)
      return this.drop(apId, 'pairing for a deleted account');
    const known = new Map<string, Lock>();
    for (const entry of announced) {
      const lock = await locks.get(entry.deviceId);
      if (lock) known.set(lock.deviceId, lock);
    }
    const steps = planPairing(apId, ap.accountId, announced, known, await locks.listByAccessPoint(apId));
    for (const step of steps) {
      if (step.kind === 'add') {
        // Until the access point's first state report the status is unknown: shown unresponsive.
        // Integration starts on: pairing a lock to an access point of a cloud account is asking for it.
        await locks.insert({
          deviceId: step.lock.deviceId,
          serial: step.lock.serial,
          nickname: step.lock.nickname,
          ownerId: ap.accountId,
          locked: true,
          battery: 100,
          responsive: false,
          integration: true,
          accessPoint: true,
          accessPointId: apId,
          appOpen: false,
          createdAt: clock.now(),
        });
      } else if (step.kind === 'pair') {
        await locks.update(step.deviceId, { accessPoint: true, accessPointId: apId });
      } else if (step.kind === 'unpair') {
        await this.deps.reports.apply(step.deviceId, { responsive: false });
        await locks.update(step.deviceId, { accessPoint: false });
      } else {
        logger.warn(
          { apId, deviceId: step.deviceId, ownerId: step.ownerId, accountId: ap.accountId },
          'an access point announced a lock of another account: not taken over',
        );
      }
    }
  }

  async lockReport(apId: string, deviceId: string, report: LockReport, mark: ReportMark): Promise<void> {
    // The mark names the access point: DeviceReports drops the report of a lock not paired with it,
    // checked on the status it reads for its compare-and-set anyway.
    await this.deps.reports.apply(deviceId, report, { ...mark, apId });
    await this.heardFrom(apId);
  }

  /** The access point spoke: its last_seen_at moves, written at most every LAST_SEEN_EVERY_MS. */
  private async heardFrom(apId: string): Promise<void> {
    const now = this.deps.clock.now();
    const written = this.seenWritten.get(apId);
    if (written !== undefined && now - written < LAST_SEEN_EVERY_MS) return;
    this.seenWritten.set(apId, now);
    await this.deps.accessPoints.seen(apId, now);
  }

  async lateResult(apId: string, taskId: string, deviceId: string, result: DeviceResult): Promise<void> {
    const lock = await this.deps.locks.get(deviceId);
    if (lock?.accessPointId !== apId)
      return this.drop(apId, 'an answer for a lock not paired with it', deviceId);
    await this.deps.commands.deviceResult(taskId, deviceId, result);
  }

  private drop(apId: string, why: string, deviceId?: string): void {
    this.deps.logger.warn({ apId, deviceId }, `device message dropped: ${why}`);
  }
}
