import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from './tables.ts';

/**
 * The grants through which `guestId` sees a lock and its guest events, as a share did: accepted
 * ones (issue 23). One rule for the lock list, the share check and the event log (locks.ts,
 * events.ts), so they cannot drift apart. Reading also ends at a grant's `ends_at` (domain
 * grantAllows): that filter belongs here, with the time passed in, when the use cases read by it;
 * a used one-time grant is already left out by its state.
 */
export const guestSees =
  (guestId: string) =>
  (eb: ExpressionBuilder<Database, 'grants'>): Expression<SqlBool> =>
    eb.and([eb('grants.account_id', '=', guestId), eb('grants.state', '=', 'accepted')]);
