/**
 * /ext/keys: the account's API keys, for a key with keys:manage (issue 23). Registered inside the
 * extension plugin, under its key check and limits. Uses the dashboard's use case (app/accounts/
 * api-keys.ts), so the same api_key.created / api_key.deleted events are written, the calling key
 * as their actor. The secret is answered once, on create; a list shows the display prefix only.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { ApiKey } from '../../domain/api-key.ts';
import { requirePrincipal } from '../principal.ts';
import { iso } from './delivery-view.ts';
import { KeyCreateBody, KeyCreatedView, KeyIdParams, KeyListView } from './key-schemas.ts';
import { ExtError } from './schemas.ts';

const tags = ['extensions'];
const security = [{ apiKey: [] }];
const scope = 'keys:manage';

const keyView = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.limits.scopes && [...k.limits.scopes],
  lock_ids: k.limits.lockIds && [...k.limits.lockIds],
  expires_at: iso(k.limits.expiresAt),
  created_at: iso(k.createdAt) as string,
  last_used_at: iso(k.lastUsedAt),
  last_used_ip: k.lastUsedIp,
});

export function keyRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const keys = lockcloud.accounts.apiKeys;

  api.get(
    '/keys',
    {
      config: { scope },
      schema: {
        summary: "The account's API keys, oldest first (never the secret)",
        tags,
        security,
        response: { 200: KeyListView, 401: ExtError, 403: ExtError },
      },
    },
    async (request) => ({
      keys: (await keys.list(requirePrincipal(request.principal).accountId)).map(keyView),
    }),
  );

  api.post(
    '/keys',
    {
      config: { scope },
      schema: {
        summary: 'Make an API key, limited to scopes, locks and an expiry within the calling key',
        description:
          'The answer carries the key (`key`), shown this once. Each limit left out or null is no limit of that kind, and must be within the calling key (403 otherwise). lock_ids must be locks the account owns. See docs/security.md.',
        tags,
        security,
        body: KeyCreateBody,
        response: { 201: KeyCreatedView, 400: ExtError, 401: ExtError, 403: ExtError },
      },
    },
    async (request, reply) => {
      const { key, view } = await keys.createWithin(requirePrincipal(request.principal), request.body);
      return reply.code(201).send({ ...keyView(view), key });
    },
  );

  api.delete(
    '/keys/:id',
    {
      config: { scope },
      schema: {
        summary: 'Delete an API key of the account (refused with 401 at once, also the calling key)',
        tags,
        security,
        params: KeyIdParams,
        response: { 204: { type: 'null' }, 401: ExtError, 403: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = requirePrincipal(request.principal);
      if (!(await keys.remove(accountId, actor, request.params.id)))
        return reply.code(404).send({ error: 'NOT_FOUND', message: 'no such API key' });
      return reply.code(204).send(null);
    },
  );
}
