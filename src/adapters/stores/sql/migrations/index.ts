import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.ts';
import * as loginTokens from './002-login-tokens.ts';
import * as ipBlocks from './003-ip-blocks.ts';
import * as webhookDeliveries from './004-webhook-deliveries.ts';
import * as deliveryState from './005-delivery-state.ts';
import * as accessPoints from './006-access-points.ts';
import * as dashboard from './007-dashboard.ts';
import * as cluster from './008-cluster.ts';
import * as openDeliveries from './009-open-deliveries.ts';
import * as events from './010-events.ts';
import * as idempotency from './011-idempotency.ts';
import * as eventSequence from './012-event-sequence.ts';
import * as webhookEndpoints from './013-webhook-endpoints.ts';
import * as webhookReadsLog from './014-webhook-reads-log.ts';
import * as deviceHealth from './015-device-health.ts';
import * as simDeviceHealth from './016-sim-device-health.ts';
import * as accessGrants from './017-access-grants.ts';
import * as grantActor from './018-grant-actor.ts';
import * as webhookFrom from './019-webhook-from.ts';
import * as oauth from './020-oauth.ts';
import * as oauthAppActor from './021-oauth-app-actor.ts';
import * as commitNotices from './022-commit-notices.ts';
import * as deliveryLogByReceiver from './023-delivery-log-by-receiver.ts';
import * as taskIndexesPartial from './024-task-indexes-partial.ts';

/** Versioned migrations, in code so a bundled or installed build carries them. Append; never edit. */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-login-tokens': loginTokens,
  '003-ip-blocks': ipBlocks,
  '004-webhook-deliveries': webhookDeliveries,
  '005-delivery-state': deliveryState,
  '006-access-points': accessPoints,
  '007-dashboard': dashboard,
  '008-cluster': cluster,
  '009-open-deliveries': openDeliveries,
  '010-events': events,
  '011-idempotency': idempotency,
  '012-event-sequence': eventSequence,
  '013-webhook-endpoints': webhookEndpoints,
  '014-webhook-reads-log': webhookReadsLog,
  '015-device-health': deviceHealth,
  '016-sim-device-health': simDeviceHealth,
  '017-access-grants': accessGrants,
  '018-grant-actor': grantActor,
  '019-webhook-from': webhookFrom,
  '020-oauth': oauth,
  '021-oauth-app-actor': oauthAppActor,
  '022-commit-notices': commitNotices,
  '023-delivery-log-by-receiver': deliveryLogByReceiver,
  '024-task-indexes-partial': taskIndexesPartial,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
