import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LockDetail } from '../../app/lock-details.ts';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { AccessPoint } from '../../domain/access-point.ts';
import { keyCoversLock } from '../../domain/scope.ts';
import { requirePrincipal } from '../principal.ts';
import { iso } from './delivery-view.ts';
import { ExtLockList, ExtLockView, LockIdParams, LockSettingsBody } from './lock-schemas.ts';
import { orNotFound } from './not-found.ts';
import { ExtError } from './schemas.ts';

const accessPointView = (ap: AccessPoint) => ({
  id: ap.id,
  name: ap.name,
  online: ap.online,
  last_seen_at: iso(ap.lastSeenAt),
  firmware: ap.firmware,
  signal: ap.signal,
  protocol_version: ap.protocolVersion,
});

/**
 * A lock as /ext shows it: its id and name, the v3 status, its health, then what only its owner sees
 * (the response schema writes the optional fields last, in this order).
 */
export function lockView({ lock, role, accessPoint }: LockDetail) {
  const state = {
    locked: lock.locked,
    battery: lock.battery,
    responsive: lock.responsive,
    battery_state: lock.batteryState,
    battery_per_day: lock.batteryPerDay,
    jammed: lock.jammed,
    door: lock.door,
    last_seen_at: iso(lock.lastSeenAt),
    firmware: lock.firmware,
    // A guest's schedule is read on this clock: the guest sees it too.
    time_zone: lock.timeZone,
  };
  // The serial names the owner's hardware: a guest knows the lock by its nickname, as on the dashboard.
  if (role === 'guest') return { device_id: lock.deviceId, nickname: lock.nickname, role, ...state };
  return {
    device_id: lock.deviceId,
    nickname: lock.nickname,
    role,
    ...state,
    serial: lock.serial,
    auto_lock_seconds: lock.autoLockSeconds,
    battery_low: lock.batteryLow,
    battery_critical: lock.batteryCritical,
    access_point: accessPoint && accessPointView(accessPoint),
  };
}

const tags = ['extensions'];
const security = [{ apiKey: [] }];

/** /ext/locks: registered inside the extension plugin, under its key check and limits. */
export function lockRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const details = lockcloud.lockDetails;
  const principal = (request: FastifyRequest) => requirePrincipal(request.principal);

  api.get(
    '/locks',
    {
      config: { scope: 'locks:read' },
      schema: {
        summary: "The account's locks and those shared with it, with their health",
        description:
          'Each lock as GET /ext/locks/{device_id} answers it, in the order v1 lists them. See docs/locks.md.',
        tags,
        security,
        response: { 200: ExtLockList, 401: ExtError },
      },
    },
    async (request) => {
      const { accountId, limits } = principal(request);
      const all = await details.list(accountId);
      // A key limited to some locks lists those only: the others do not exist for it.
      const locks = limits.lockIds === null ? all : all.filter((d) => keyCoversLock(limits, d.lock.deviceId));
      return { locks: locks.map(lockView) };
    },
  );

  api.get(
    '/locks/:device_id',
    {
      config: { scope: 'locks:read' },
      schema: {
        summary: 'A lock: the v3 status, its health, and for its owner the settings and access point',
        tags,
        security,
        params: LockIdParams,
        response: { 200: ExtLockView, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) =>
      orNotFound(
        reply,
        details.get(principal(request).accountId, request.params.device_id.toLowerCase()).then(lockView),
      ),
  );

  api.patch(
    '/locks/:device_id',
    {
      config: { scope: 'locks:operate' },
      schema: {
        summary: "Change the lock's settings (owner only): nickname, auto-lock, battery thresholds",
        description:
          'auto_lock_seconds is sent to the device, which carries it out (device protocol 2); a new threshold reads the battery state again, and a crossing it makes is an event. See docs/locks.md.',
        tags,
        security,
        params: LockIdParams,
        body: LockSettingsBody,
        response: { 200: ExtLockView, 400: ExtError, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = principal(request);
      const body = request.body;
      return orNotFound(
        reply,
        details
          .change(
            accountId,
            request.params.device_id.toLowerCase(),
            {
              nickname: body.nickname,
              autoLockSeconds: body.auto_lock_seconds,
              batteryLow: body.battery_low,
              batteryCritical: body.battery_critical,
              timeZone: body.time_zone,
            },
            actor,
          )
          .then(lockView),
      );
    },
  );
}
