import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { SimLockView } from '../../app/sandbox.ts';
import { isDomainError } from '../../domain/errors.ts';
import { requestFault } from '../fastify-errors.ts';
import { prepareUnavailable, UNAVAILABLE_MESSAGE } from '../unavailable.ts';
import {
  AccountChange,
  AccountChanged,
  AccountParams,
  ClockAdvance,
  ClockState,
  MailboxQuery,
  MailList,
  ResetBody,
  ResetDone,
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
    cause:
      'a field is missing, unknown, or of the wrong type or range (the message names it); the body is not valid JSON, not an object, or of another content type; the path cannot be decoded or the request is not valid HTTP',
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 431,
    error: 'BAD_PARAMS',
    cause: 'the request line and headers are over 16 KiB (a very long path or query string)',
  },
  { status: 408, error: 'BAD_PARAMS', cause: 'the request line and headers did not arrive in time' },
  { status: 404, error: 'NOT_FOUND', cause: 'no such lock or account, or no such sandbox route or method' },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database, or Redis for a reset, cannot be reached (it restarts or is down): a temporary condition, and the change may not have been made; Retry-After says when to try again',
  },
] as const;

const tags = ['sandbox'];
const noSuchRoute = (method: string) => ({
  error: 'NOT_FOUND',
  message: `no ${method} route here (SANDBOX.md)`,
});
const clockState = (epochMs: number) => ({ now: new Date(epochMs).toISOString(), epoch_ms: epochMs });
const lockState = (s: SimLockView) => ({
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
  app.setNotFoundHandler((request, reply) => reply.code(404).send(noSuchRoute(request.method)));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A body that cannot be read on a route that does not exist (or a wrong method): still 404.
    if (request.is404) return reply.code(404).send(noSuchRoute(request.method));
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
    if (prepareUnavailable(error, request, reply))
      return reply.send({ error: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE_MESSAGE });
    request.log.error({ err: error }, 'sandbox request failed');
    return reply
      .code(500)
      .send({ error: 'INTERNAL_ERROR', message: 'unexpected failure, logged under this X-Request-Id' });
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
    async (request) => clockState(await sandbox.advanceClock(request.body.advance_seconds)),
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
    {
      schema: {
        summary: 'Put everything back as the seed left it',
        description: 'Takes no body (an empty JSON object is accepted too).',
        tags,
        body: ResetBody,
        response: { 204: ResetDone, 400: SimError },
      },
      // No body at all is the usual call and stands for the empty object; anything else meets the schema.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (_request, reply) => {
      await sandbox.reset();
      return reply.code(204).send(null);
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
      // Forgot password and resend mail their code after answering (app/accounts/codes.ts): what an
      // answered request mailed is in the mailbox by the time it is read.
      await lockcloud.accounts.mailsSent();
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
