import type { FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { Origin } from '../../domain/event.ts';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from '../../domain/idempotency.ts';
import type { LockCommand } from '../../domain/lock.ts';

/**
 * A v3 command, with or without an Idempotency-Key. Without the header the path is the one it always
 * was, to the byte; with one, the key is checked after the body (so the documented check order
 * holds: key, body, then the idempotency key, then the lock) and the command is sent once per key.
 */
export async function sendCommand(
  lockcloud: Lockcloud,
  request: FastifyRequest,
  endpoint: string,
  accountId: string,
  deviceId: string,
  command: LockCommand,
  origin: Origin,
): Promise<string> {
  const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER]);
  if (key === undefined) return (await lockcloud.commands.send(accountId, deviceId, command, origin)).id;
  return lockcloud.idempotentCommands.send(accountId, deviceId, command, origin, { key, endpoint });
}
