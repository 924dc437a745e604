/** The /ext/keys schemas (OpenAPI and validation); docs/security.md "Scoped, expiring API keys". */
import { Type } from 'typebox';
import { MAX_KEY_LOCKS, SCOPES } from '../../domain/scope.ts';

const Scope = Type.Union(
  SCOPES.map((s) => Type.Literal(s)),
  { description: 'locks:operate implies locks:read' },
);
const Scopes = Type.Union([Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length }), Type.Null()], {
  description: 'null or left out: every scope (a key without limits)',
});
const LockIds = Type.Union(
  [Type.Array(Type.String({ maxLength: 128 }), { minItems: 1, maxItems: MAX_KEY_LOCKS }), Type.Null()],
  { description: 'device ids of locks the account owns; null or left out: every lock' },
);
const ExpiresAt = Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
  description: 'RFC 3339 with an offset, in the future; null or left out: never',
});

export const KeyCreateBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    scopes: Type.Optional(Scopes),
    lock_ids: Type.Optional(LockIds),
    expires_at: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);

const keyFields = {
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  prefix: Type.String({ description: 'the first characters of the key, to tell keys apart' }),
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
  lock_ids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  last_used_ip: Type.Union([Type.String(), Type.Null()]),
};

export const KeyView = Type.Object(keyFields);

/** The answer that made a key: the only one that carries the key itself. */
export const KeyCreatedView = Type.Object({
  ...keyFields,
  key: Type.String({ description: 'the key itself, shown this once' }),
});

export const KeyListView = Type.Object({ keys: Type.Array(KeyView) });

export const KeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
