/**
 * /ext commands (issue 23): `POST /ext/locks/{device_id}/commands` for the lock's owner and for a
 * guest through an accepted operate grant, within its window and schedule; `GET /ext/tasks/{task_id}`
 * for whoever sent the task and the lock's owner. The same commands, tasks, busy, low-battery,
 * integration rules and command budget as v3; v3 and v1 keep their own (only owners control).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { IdempotencyClaim } from '../../app/ports.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyFingerprint,
  parseIdempotencyKey,
} from '../../domain/idempotency.ts';
import type { Task } from '../../domain/task.ts';
import { IdempotencyHeaders } from '../idempotency-headers.ts';
import { requirePrincipal } from '../principal.ts';
import '../route-scope.ts';
import { ExtCommandBody, ExtTaskView, TaskIdParams } from './command-schemas.ts';
import { iso } from './delivery-view.ts';
import { LockIdParams } from './lock-schemas.ts';
import { orNotFound } from './not-found.ts';
import { ExtError } from './schemas.ts';

/** A task as /ext shows it: v3's outcome, with the lock, the command and the times. */
export function taskView(task: Task) {
  const ended = task.status === 'terminated';
  return {
    task_id: task.id,
    device_id: task.deviceId,
    command: task.command,
    status: task.status,
    ...(ended && task.outcome.successful ? { successful: true } : {}),
    ...(ended && !task.outcome.successful ? { successful: false, error: task.outcome.error } : {}),
    created_at: new Date(task.createdAt).toISOString(),
    ended_at: iso(ended ? task.endedAt : null),
  };
}

const tags = ['extensions'];
/** What tells this endpoint's Idempotency-Keys from v3's: a key names one request of one endpoint. */
const COMMAND_ENDPOINT = 'POST /ext/locks/{device_id}/commands';
const security = [{ apiKey: [] }];

/** Registered inside the extension plugin, under its key check and limits. */
export function commandRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const principal = (request: FastifyRequest) => requirePrincipal(request.principal);

  api.post(
    '/locks/:device_id/commands',
    {
      config: { scope: 'locks:operate' },
      schema: {
        summary: "Lock, unlock or sync: the lock's owner, or a guest with an operate grant within its terms",
        description:
          'Answers 202 with the task at once, as v3 does; read its end with GET /ext/tasks/{task_id}. With an Idempotency-Key, the same key and request within 24 h answer the same task (as it is then), from any process; the key with another lock or command is 400 BAD_PARAMS. A guest outside its window or schedule, with a view grant or a used one-time grant: 403 ACCESS_DENY saying why; without an accepted grant: 404. See docs/locks.md "Grants".',
        tags,
        security,
        params: LockIdParams,
        headers: IdempotencyHeaders,
        body: ExtCommandBody,
        response: {
          202: ExtTaskView,
          400: ExtError,
          401: ExtError,
          403: ExtError,
          404: ExtError,
          429: ExtError,
        },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = principal(request);
      const deviceId = request.params.device_id.toLowerCase();
      const { command } = request.body;
      // Checked after the body, before the lock, as on v3 (docs/errors.md, Idempotency-Key).
      const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER]);
      const send = (claim?: IdempotencyClaim) =>
        lockcloud.guestCommands.send(accountId, deviceId, command, actor, claim);
      const sent =
        key === undefined
          ? send()
          : lockcloud.idempotentCommands
              .once(accountId, key, idempotencyFingerprint(COMMAND_ENDPOINT, deviceId, command), send)
              // The key's task as it is now: a repeat answers the same task, maybe ended since.
              .then((taskId) => lockcloud.guestCommands.result(accountId, taskId));
      return orNotFound(
        reply,
        sent.then((task) => reply.code(202).send(taskView(task))),
      );
    },
  );

  api.get(
    '/tasks/:task_id',
    {
      config: { scope: 'locks:read' },
      schema: {
        summary: "A command's task: for the account that sent it and the lock's owner",
        description: 'Kept at least 24 h after it ends, as v3 keeps them.',
        tags,
        security,
        params: TaskIdParams,
        response: { 200: ExtTaskView, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) =>
      orNotFound(
        reply,
        lockcloud.guestCommands.result(principal(request).accountId, request.params.task_id).then(taskView),
      ),
  );
}
