/**
 * The endpoint table the authorization matrix is generated from: every route the server has (the
 * route-table test fails when the server grows one this table lacks), with the object it acts on,
 * the credential it takes (by its surface) and what an account gets for its own object, for a lock
 * shared with it, and for another account's object (or one that does not exist).
 */

import type { Endpoint } from './route-kit.ts';
import { API_ROUTES } from './routes-api.ts';
import { DASHBOARD_ROUTES } from './routes-dashboard.ts';
import { EXT_ROUTES } from './routes-ext.ts';
import { GRANT_ROUTES } from './routes-grants.ts';
import { OPEN_ROUTES } from './routes-open.ts';

export type { Ctx, Endpoint, Target } from './route-kit.ts';

/** By surface, in this order: v1, v3 and partner; /ext; the dashboard; routes of no account. */
export const ENDPOINTS: readonly Endpoint[] = [
  ...API_ROUTES,
  ...EXT_ROUTES,
  ...GRANT_ROUTES,
  ...DASHBOARD_ROUTES,
  ...OPEN_ROUTES,
];
