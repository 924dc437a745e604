import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { SimDeviceState } from '../../app/ports.ts';
import { isDomainError } from '../../domain/errors.ts';
import { requestFault } from '../fastify-errors.ts';
import {
  AccountChange,
  AccountChanged,
  AccountParams,
  ClockAdvance,
  ClockState,
  MailboxQuery,
  MailList,
  SimError,
  SimLockChange,
  SimLockParams,
  SimLockState,
} from './schemas.ts';

/** The sandbox's errors: the v3 shape plus a message, since these callers are people writing tests. */
export const SANDBOX_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause: 'a field is missing, unknown, or of the wrong type or range (the message names it)',
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 404,
    error: 'NOT_FOUND',
    cause: 'no such lock or account, no such route, or the server runs with --production',
  },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
] as const;

const tags = ['sandbox'];
const clockState = (epochMs: number) => ({ now: new Date(epochMs).toISOString(), epoch_ms: epochMs });
const lockState = (s: SimDeviceState & { integration: boolean }) => ({
  device_id: s.deviceId,
  locked: s.locked,
  battery: s.battery,
  responsive: s.responsive,
  integration: s.integration,
  access_point: s.accessPoint,
  app_open: s.appOpen,
  latency_ms: s.latencyMs,
  fail_next: s.failNext,
});

/** SANDBOX.md's control surface under /_sim; never registered in production. */
export const sandboxPlugin: FastifyPluginAsyncTypebox<{ lockcloud: Lockcloud }> = async (
  app,
  { lockcloud },
) => {
  const { sandbox } = lockcloud;
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'NOT_FOUND' }));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isDomainError(error)) {
      const notFound = error.code === 'LOCK_NOT_FOUND' || error.code === 'ACCOUNT_NOT_FOUND';
      return notFound
        ? reply.code(404).send({ error: 'NOT_FOUND', message: error.message })
        : reply.code(400).send({ error: 'BAD_PARAMS', message: error.message });
    }
    const fault = requestFault(error);
    if (fault !== undefined) {
      return reply
        .code(fault === 'too-large' ? 413 : 400)
        .send({ error: 'BAD_PARAMS', message: error.message });
    }
    request.log.error({ err: error }, 'sandbox request failed');
    return reply.code(500).send({ error: 'INTERNAL_ERROR' });
  });

  app.post(
    '/locks/:device_id',
    {
      schema: {
        summary: 'Change a simulated lock as the lock, the app or the access point would',
        tags,
        params: SimLockParams,
        body: SimLockChange,
        response: { 200: SimLockState, 400: SimError, 404: SimError },
      },
    },
    async (request) => {
      const b = request.body;
      const state = await sandbox.changeLock(request.params.device_id.toLowerCase(), {
        locked: b.locked,
        battery: b.battery,
        responsive: b.responsive,
        integration: b.integration,
        accessPoint: b.access_point,
        appOpen: b.app_open,
        latencyMs: b.latency_ms,
        failNext: b.fail_next,
      });
      return lockState(state);
    },
  );

  app.get(
    '/clock',
    { schema: { summary: 'Read the server clock', tags, response: { 200: ClockState } } },
    async () => clockState(sandbox.now()),
  );

  app.post(
    '/clock',
    {
      schema: {
        summary: 'Move the server clock forward',
        description: 'Token expiry, blocks, task timeouts and rate-limit windows all follow it.',
        tags,
        body: ClockAdvance,
        response: { 200: ClockState, 400: SimError },
      },
    },
    async (request) => clockState(sandbox.advanceClock(request.body.advance_seconds)),
  );

  app.post(
    '/accounts/:email',
    {
      schema: {
        summary: "Change an account's password or delete it, as the owner would in the app",
        tags,
        params: AccountParams,
        body: AccountChange,
        response: { 200: AccountChanged, 400: SimError, 404: SimError },
      },
    },
    async (request) => {
      await sandbox.changeAccount(request.params.email, request.body);
      return {
        email: request.params.email.toLowerCase(),
        password_changed: request.body.password !== undefined,
        deleted: request.body.deleted === true,
      };
    },
  );

  app.post(
    '/reset',
    { schema: { summary: 'Put everything back as the seed left it', tags } },
    async (_request, reply) => {
      await sandbox.reset();
      return reply.code(204).send();
    },
  );

  app.get(
    '/mailbox',
    {
      schema: {
        summary: 'Mails sent to an address, newest first',
        tags,
        querystring: MailboxQuery,
        response: { 200: MailList, 400: SimError },
      },
    },
    async (request) => {
      const mails = await sandbox.mailbox(request.query.to);
      return mails.map((m) => ({
        to: m.to,
        subject: m.subject,
        text: m.text,
        sent_at: new Date(m.sentAt).toISOString(),
      }));
    },
  );
};
