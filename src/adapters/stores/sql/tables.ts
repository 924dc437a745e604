import type { Generated } from 'kysely';

/**
 * Row shapes, shared by every SQL backend. Booleans are 0/1 integers and instants are epoch
 * milliseconds so one set of queries runs unchanged on SQLite and PostgreSQL.
 */
export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  verified: number;
  deleted_at: number | null;
  password_changed_at: number | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  key_hash: string;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
  /** JSON list of scopes (migration 017); null: every scope (keys from before scopes). */
  scopes: string | null;
  /** JSON list of device ids; null: every lock of the account. */
  lock_ids: string | null;
  expires_at: number | null;
  name: string | null;
  /** The client address of the last use. */
  last_used_ip: string | null;
}

export interface LocksTable {
  device_id: string;
  serial: string;
  nickname: string;
  owner_id: string;
  locked: number;
  battery: number;
  responsive: number;
  integration: number;
  access_point: number;
  app_open: number;
  created_at: number;
  /** The access point the lock is paired with (or was last); null for locks no device announced. */
  ap_id: string | null;
  /** Bumped by every status write: the compare-and-set that makes one change announced once. */
  status_version: Generated<number>;
  /** The device report last applied: its access point, epoch and sequence number. */
  report_ap: string | null;
  report_epoch: string | null;
  report_seq: number | null;
  jammed: Generated<number>;
  door: string | null;
  firmware: string | null;
  last_seen_at: number | null;
  auto_lock_seconds: Generated<number>;
  battery_low: Generated<number>;
  battery_critical: Generated<number>;
  battery_state: Generated<string>;
  offline_since: number | null;
  offline_announced: Generated<number>;
  battery_per_day_tenths: number | null;
  battery_ref_level: number | null;
  battery_ref_at: number | null;
  /** IANA zone the grants' schedules are read in (migration 017). */
  time_zone: Generated<string>;
}

export interface AccessPointsTable {
  id: string;
  account_id: string;
  name: string;
  secret_hash: string;
  broker_hash: string | null;
  created_at: number;
  online: number;
  last_seen_at: number | null;
  firmware: string | null;
  signal: number | null;
  protocol_version: Generated<number>;
}

export interface SimAccessPointsTable {
  id: string;
  sealed_secret: string;
}

/** One row per lock and guest (migration 017, formerly lock_shares): the guest's grant. */
export interface GrantsTable {
  device_id: string;
  /** The guest. */
  account_id: string;
  id: string;
  owner_id: string;
  role: string;
  state: string;
  starts_at: number | null;
  ends_at: number | null;
  /** JSON of a WeeklySchedule; null: at any time. */
  schedule: string | null;
  one_time: number;
  created_at: number;
  responded_at: number | null;
  used_at: number | null;
}

export interface TasksTable {
  id: string;
  account_id: string;
  device_id: string;
  command: string;
  status: string;
  successful: number | null;
  error: string | null;
  created_at: number;
  deadline: number;
  ended_at: number | null;
  /** Where the command came from (JSON of the actor, and the method); null for rows older than them. */
  origin_actor: string | null;
  origin_method: string | null;
}

export interface EventsTable {
  id: string;
  type: string;
  occurred_at: number;
  account_id: string;
  device_id: string | null;
  actor_kind: string;
  actor_account_id: string | null;
  actor_key_prefix: string | null;
  /** For a guest's use through a grant (migration 018); absent in rows older than it. */
  actor_grant_id: Generated<string | null>;
  /** For an OAuth app acting for a user (migration 021): its client id, and its name when it acted. */
  actor_app_id: Generated<string | null>;
  actor_app_name: Generated<string | null>;
  method: string | null;
  task_id: string | null;
  /** JSON. */
  data: string;
  /** The position in commit order (migration 012). */
  seq: number;
}

/** One row, `events`: the last position handed out (migration 012). */
export interface EventSequenceTable {
  name: string;
  value: number;
}

export interface WebhooksTable {
  account_id: string;
  url: string;
  method: string;
  retries: number;
  secret: string | null;
  previous_secret: string | null;
  previous_until: number | null;
  /** The log position the webhook reports changes after (migration 019). */
  from_seq: Generated<number>;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  device_id: string;
  event: string;
  url: string;
  host: string;
  method: string;
  body: string | null;
  /** 1 locked, 0 unlocked; null for rows older than the column. */
  locked: number | null;
  retries: number;
  seq: number;
  created_at: number;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  response_status: number | null;
  error: string | null;
  latency_ms: number | null;
  /** When a process took it to send; a delivery long in `sending` was cut short by a dead process. */
  claimed_at: number | null;
  /** The endpoint the message is for (migration 013); '' for the API Settings webhook. */
  endpoint_id: Generated<string>;
  /** The event an endpoint's message carries; null for the API Settings webhook. */
  event_id: string | null;
  /** `<endpoint>:<event>` for a relayed message (unique); null for resends and the webhook. */
  relay_key: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  types: string;
  device_ids: string;
  retries: number;
  secret: string;
  previous_secret: string | null;
  previous_until: number | null;
  enabled: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  failing_since: number | null;
  from_seq: number;
  created_at: number;
}

export interface WebhookRelayTable {
  name: string;
  position: number;
  last_seq: number;
  webhook_from: number;
}

export interface SimDevicesTable {
  device_id: string;
  locked: number;
  battery: number;
  responsive: number;
  access_point: number;
  app_open: number;
  latency_ms: number;
  fail_next: string | null;
  ap_id: string | null;
  serial: string | null;
  nickname: string | null;
  jammed: number;
  door: string | null;
  firmware: string;
  auto_lock_seconds: number;
}

export interface LoginTokensTable {
  id: string;
  account_id: string;
  token_hash: string;
  issued_at: number;
}

export interface IpBlocksTable {
  ip: string;
  blocked_at: number;
  until: number;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  api_unlocked_until: number | null;
}

export interface OneTimeCodesTable {
  id: string;
  account_id: string;
  purpose: string;
  code_hash: string;
  created_at: number;
  expires_at: number;
  attempts: number;
  used_at: number | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  /** SHA-256 of the client's Idempotency-Key, hex. */
  key_hash: string;
  fingerprint: string;
  task_id: string;
  created_at: number;
  expires_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface OAuthAppsTable {
  id: string;
  account_id: string;
  name: string;
  redirect_uris: string;
  kind: string;
  secret_hash: string | null;
  secret_prefix: string | null;
  created_at: number;
  updated_at: number;
}

export interface OAuthConsentsTable {
  account_id: string;
  app_id: string;
  scopes: string;
  lock_ids: string | null;
  grant_id: string;
  granted_at: number;
  last_used_at: number | null;
}

export interface OAuthRecordsTable {
  model: string;
  id_hash: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  scope: string | null;
  expires_at: number;
  consumed_at: number | null;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  locks: LocksTable;
  grants: GrantsTable;
  tasks: TasksTable;
  webhooks: WebhooksTable;
  sim_devices: SimDevicesTable;
  access_points: AccessPointsTable;
  sim_access_points: SimAccessPointsTable;
  login_tokens: LoginTokensTable;
  ip_blocks: IpBlocksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_relay: WebhookRelayTable;
  sessions: SessionsTable;
  one_time_codes: OneTimeCodesTable;
  events: EventsTable;
  event_sequence: EventSequenceTable;
  idempotency_keys: IdempotencyKeysTable;
  meta: MetaTable;
  oauth_apps: OAuthAppsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_records: OAuthRecordsTable;
}

/** The tables a sandbox snapshot copies, parents before children. */
export const DATA_TABLES = [
  'accounts',
  'api_keys',
  'access_points',
  'locks',
  'grants',
  'tasks',
  'webhooks',
  'sim_devices',
  'sim_access_points',
  'login_tokens',
  'ip_blocks',
  'webhook_endpoints',
  'webhook_deliveries',
  'sessions',
  'one_time_codes',
  'events',
  'idempotency_keys',
  'oauth_apps',
  'oauth_consents',
  'oauth_records',
] as const satisfies readonly (keyof Database)[];

export const bool = (value: boolean): number => (value ? 1 : 0);
