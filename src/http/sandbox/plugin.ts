import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { SimLockView } from '../../app/sandbox.ts';
import { LATEST_VERSION } from '../../device-protocol/versions.ts';
import { answerErrorsWith } from '../error-pipeline.ts';
import { sandboxErrors } from './errors.ts';
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
  SimLockAdd,
  SimLockAdded,
  SimLockChange,
  SimLockParams,
  SimLockState,
} from './schemas.ts';

const tags = ['sandbox'];
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
  jammed: s.jammed,
  door: s.door,
  firmware: s.firmware,
  auto_lock_seconds: s.autoLockSeconds,
  protocol_version: s.protocolVersion,
});

/** docs/sandbox.md's control surface under /_sim; never registered in production. */
export const sandboxPlugin: FastifyPluginAsyncTypebox<{ lockcloud: Lockcloud }> = async (
  app,
  { lockcloud },
) => {
  const { sandbox } = lockcloud;
  answerErrorsWith(app, sandboxErrors);

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
        door: b.door,
        jammed: b.jammed,
        firmware: b.firmware,
      });
      return lockState(state);
    },
  );

  app.post(
    '/locks',
    {
      schema: {
        summary: 'Add a simulated lock to an account',
        description:
          "The server's simulator runs it, paired with the account's simulated access point (one is registered when needed), as it runs the seed's locks; the answer comes once the cloud has heard it. A restart keeps it; a reset removes it.",
        tags,
        body: SimLockAdd,
        response: { 201: SimLockAdded, 400: SimError, 404: SimError },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { lock, state, ownerEmail } = await sandbox.addLock(b.owner, {
        nickname: b.nickname,
        locked: b.locked,
        battery: b.battery,
        latencyMs: b.latency_ms,
      });
      return reply.code(201).send({
        // The server's own simulated access points speak the latest version.
        ...lockState({ ...state, integration: lock.integration, protocolVersion: LATEST_VERSION }),
        serial: lock.serial,
        nickname: lock.nickname,
        owner: ownerEmail,
        access_point_id: state.apId,
      });
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
