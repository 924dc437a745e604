/**
 * The Idempotency-Key header of the command routes (v3's two and /ext's), declared once for their
 * OpenAPI; issue 21, point 5.
 */
import { Type } from 'typebox';

/**
 * Documents the optional header; its rules (1 to 255 visible ASCII characters, bare or as a quoted
 * Structured Field string) are checked by domain/idempotency.ts, so its refusals read the same
 * whichever way the header is malformed.
 */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Optional (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): 1 to 255 visible ASCII characters, bare or quoted. The same key with the same request within 24 h answers the first task_id without sending the command again, also while the first request is in flight; the same key with another lock, command or endpoint answers BAD_PARAMS. Keys are per account.',
    }),
  ),
});
