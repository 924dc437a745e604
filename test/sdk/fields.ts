/**
 * The SDK's request and response types as runtime field lists, for the drift test: the compiler ties
 * each list to its type (a field missing from a list, or a list naming a field the type does not
 * have, or a required list that differs, does not compile), and test/sdk/drift.test.ts compares the
 * lists with the server's `/openapi.json`. Test code: nothing here ships in the package.
 */
import type {
  ActionResult,
  Command,
  CommandResponse,
  Lock,
  LockStatus,
  PartnerAutomationRequest,
  V1ControlType,
  V1Lock,
  V1LockList,
  V1LockStatus,
  V1LoginResponse,
} from '../../sdk/src/types.ts';
import type {
  WebhookEndpoint,
  WebhookEndpointDelivery,
  WebhookEndpointDeliveryPage,
  WebhookEndpointInput,
  WebhookEndpointList,
} from '../../sdk/src/types-endpoints.ts';
import type {
  DeliveryAccepted,
  EventPage,
  LockcloudEvent,
  Webhook,
  WebhookDelivery,
  WebhookSecret,
  WebhookSettings,
} from '../../sdk/src/types-ext.ts';
import type {
  GrantInvitation,
  GrantTerms,
  GuestGrant,
  GuestGrantList,
  InvitationList,
  OwnerGrant,
  OwnerGrantList,
} from '../../sdk/src/types-grants.ts';
import type { ApiKey, ApiKeyInput, ApiKeyList, CreatedApiKey } from '../../sdk/src/types-keys.ts';
import type {
  ExtTask,
  LockAccessPoint,
  LockHealth,
  LockHealthList,
  LockSettings,
} from '../../sdk/src/types-locks.ts';
import type {
  SandboxAccountChange,
  SandboxAccountChanged,
  SandboxAddedLock,
  SandboxClock,
  SandboxLockChange,
  SandboxLockState,
  SandboxMail,
  SandboxNewLock,
} from '../../sdk/src/types-sandbox.ts';

type AllKeys<T> = T extends unknown ? keyof T : never;
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];

/** The fields and required fields of a request or response object, as a runtime value. */
export interface FieldList {
  readonly fields: readonly string[];
  readonly required: readonly string[];
}

/**
 * Builds a {@link FieldList} for `T`; the compiler refuses a list that misses a field of `T`, or
 * names one `T` does not have, and a `required` list that differs from `T`'s required fields.
 */
export function fieldsOf<T>() {
  return <const F extends readonly AllKeys<T>[], const R extends readonly RequiredKeys<T>[]>(
    fields: F &
      ([Exclude<AllKeys<T>, F[number]>] extends [never]
        ? unknown
        : { missing: Exclude<AllKeys<T>, F[number]> }),
    required: R &
      ([Exclude<RequiredKeys<T>, R[number]>] extends [never]
        ? unknown
        : { missing: Exclude<RequiredKeys<T>, R[number]> }),
  ): FieldList => ({ fields: fields as readonly string[], required: required as readonly string[] });
}

/** An API key as /ext/keys lists it; `key` (the secret) only in the answer that made it. */
const KEY_FIELDS = [
  'id',
  'name',
  'prefix',
  'scopes',
  'lock_ids',
  'expires_at',
  'created_at',
  'last_used_at',
  'last_used_ip',
] as const;
const KEY_REQUIRED = KEY_FIELDS;
/** A grant (docs/locks.md "Grants"): every field, always; the owner's and the guest's add theirs. */
const GRANT_FIELDS = [
  'id',
  'device_id',
  'role',
  'state',
  'starts_at',
  'ends_at',
  'schedule',
  'one_time',
  'created_at',
  'responded_at',
  'used_at',
] as const;
const OWNER_GRANT_FIELDS = [...GRANT_FIELDS, 'guest_email'] as const;
const GUEST_GRANT_FIELDS = [...GRANT_FIELDS, 'lock_nickname', 'lock_time_zone', 'owner_email'] as const;
const GRANT_TERMS = ['role', 'starts_at', 'ends_at', 'schedule', 'one_time'] as const;

const ENDPOINT_FIELDS = [
  'id',
  'url',
  'types',
  'device_ids',
  'retries',
  'enabled',
  'disabled_at',
  'disabled_reason',
  'failing_since',
  'created_at',
] as const;
const ENDPOINT_DELIVERY_FIELDS = [
  'id',
  'event',
  'event_id',
  'device_id',
  'url',
  'status',
  'attempts',
  'response_status',
  'error',
  'latency_ms',
  'created_at',
  'last_attempt_at',
  'next_attempt_at',
] as const;
const EVENT_FIELDS = [
  'id',
  'type',
  'occurred_at',
  'device_id',
  'actor',
  'method',
  'task_id',
  'data',
] as const;

const DELIVERY_FIELDS = [
  'id',
  'event',
  'device_id',
  'url',
  'method',
  'status',
  'attempts',
  'response_status',
  'error',
  'latency_ms',
  'created_at',
  'last_attempt_at',
  'next_attempt_at',
] as const;
/** /ext/locks: what every account that sees the lock reads, then what its owner alone reads. */
const LOCK_HEALTH_FIELDS = [
  'device_id',
  'nickname',
  'role',
  'locked',
  'battery',
  'responsive',
  'battery_state',
  'battery_per_day',
  'jammed',
  'door',
  'last_seen_at',
  'firmware',
  'time_zone',
] as const;
const LOCK_OWNER_FIELDS = [
  'serial',
  'auto_lock_seconds',
  'battery_low',
  'battery_critical',
  'access_point',
] as const;
const LOCK_SETTINGS = [
  'nickname',
  'auto_lock_seconds',
  'battery_low',
  'battery_critical',
  'time_zone',
] as const;
const EXT_TASK_FIELDS = [
  'task_id',
  'device_id',
  'command',
  'status',
  'successful',
  'error',
  'created_at',
  'ended_at',
] as const;
const EXT_TASK_REQUIRED = ['task_id', 'device_id', 'command', 'status', 'created_at', 'ended_at'] as const;

const SIM_LOCK_CHANGE = [
  'locked',
  'battery',
  'responsive',
  'integration',
  'access_point',
  'app_open',
  'latency_ms',
  'fail_next',
] as const;
const SIM_LOCK_ADDED = ['serial', 'nickname', 'owner', 'access_point_id'] as const;
/** What a simulated lock on device protocol 2 plays of its health: the answer, and the change. */
const SIM_LOCK_HEALTH = ['jammed', 'door', 'firmware', 'auto_lock_seconds', 'protocol_version'] as const;
const SIM_LOCK_HEALTH_CHANGE = ['door', 'jammed', 'firmware'] as const;

/**
 * The documented success response of every endpoint with a JSON answer, by `METHOD path` as in
 * `/openapi.json`. For an array response the fields are those of an element; for `GET /v1/locks`
 * the wrapper is `{locks}` and the element's fields are under `GET /v1/locks[]`.
 */
export const RESPONSE_FIELDS = {
  'GET /public/locks': fieldsOf<Lock>()(
    ['device_id', 'serial', 'nickname'],
    ['device_id', 'serial', 'nickname'],
  ),
  'GET /public/lock/{device_id}': fieldsOf<LockStatus>()(
    ['locked', 'battery', 'responsive'],
    ['locked', 'battery', 'responsive'],
  ),
  'POST /public/lock/{device_id}': fieldsOf<CommandResponse>()(['task_id'], ['task_id']),
  'GET /public/action-result': fieldsOf<ActionResult>()(
    ['status', 'task_id', 'successful', 'error'],
    ['status', 'task_id'],
  ),
  'POST /public/partners/automation': fieldsOf<CommandResponse>()(['task_id'], ['task_id']),
  'POST /v1/accounts/login': fieldsOf<V1LoginResponse>()(['authorization'], ['authorization']),
  'GET /v1/locks': fieldsOf<V1LockList>()(['locks'], ['locks']),
  'GET /v1/locks[]': fieldsOf<V1Lock>()(
    ['device_id', 'nickname', 'is_unlocked', 'api_enabled', 'battery'],
    ['device_id', 'nickname', 'is_unlocked', 'api_enabled', 'battery'],
  ),
  'GET /v1/locks/{lockId}': fieldsOf<V1LockStatus>()(
    ['nickname', 'is_unlocked', 'api_enabled', 'battery'],
    ['nickname', 'is_unlocked', 'api_enabled', 'battery'],
  ),
  'GET /ext/webhook': fieldsOf<Webhook>()(
    ['url', 'method', 'retries', 'secret'],
    ['url', 'method', 'retries'],
  ),
  'PUT /ext/webhook': fieldsOf<Webhook>()(
    ['url', 'method', 'retries', 'secret'],
    ['url', 'method', 'retries'],
  ),
  'POST /ext/webhook/rotate-secret': fieldsOf<WebhookSecret>()(['secret'], ['secret']),
  'POST /ext/webhook/test': fieldsOf<DeliveryAccepted>()(['delivery_id'], ['delivery_id']),
  'GET /ext/webhook/deliveries': fieldsOf<WebhookDelivery>()(DELIVERY_FIELDS, DELIVERY_FIELDS),
  'POST /ext/webhook/deliveries/{id}/resend': fieldsOf<DeliveryAccepted>()(['delivery_id'], ['delivery_id']),
  'GET /ext/events': fieldsOf<EventPage>()(['events', 'next_cursor'], ['events', 'next_cursor']),
  'GET /ext/events[]': fieldsOf<LockcloudEvent>()(EVENT_FIELDS, EVENT_FIELDS),
  'POST /ext/webhook-endpoints': fieldsOf<WebhookEndpoint>()([...ENDPOINT_FIELDS, 'secret'], ENDPOINT_FIELDS),
  'GET /ext/webhook-endpoints': fieldsOf<WebhookEndpointList>()(['endpoints'], ['endpoints']),
  'GET /ext/webhook-endpoints[]': fieldsOf<WebhookEndpoint>()(
    [...ENDPOINT_FIELDS, 'secret'],
    ENDPOINT_FIELDS,
  ),
  'GET /ext/webhook-endpoints/{id}': fieldsOf<WebhookEndpoint>()(
    [...ENDPOINT_FIELDS, 'secret'],
    ENDPOINT_FIELDS,
  ),
  'PATCH /ext/webhook-endpoints/{id}': fieldsOf<WebhookEndpoint>()(
    [...ENDPOINT_FIELDS, 'secret'],
    ENDPOINT_FIELDS,
  ),
  'POST /ext/webhook-endpoints/{id}/rotate-secret': fieldsOf<WebhookSecret>()(['secret'], ['secret']),
  'GET /ext/webhook-endpoints/{id}/deliveries': fieldsOf<WebhookEndpointDeliveryPage>()(
    ['deliveries', 'next_cursor'],
    ['deliveries', 'next_cursor'],
  ),
  'GET /ext/webhook-endpoints/{id}/deliveries[]': fieldsOf<WebhookEndpointDelivery>()(
    ENDPOINT_DELIVERY_FIELDS,
    ENDPOINT_DELIVERY_FIELDS,
  ),
  'POST /ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend': fieldsOf<DeliveryAccepted>()(
    ['delivery_id'],
    ['delivery_id'],
  ),
  'GET /ext/locks': fieldsOf<LockHealthList>()(['locks'], ['locks']),
  'GET /ext/keys': fieldsOf<ApiKeyList>()(['keys'], ['keys']),
  'GET /ext/keys[]': fieldsOf<ApiKey>()(KEY_FIELDS, KEY_REQUIRED),
  'POST /ext/keys': fieldsOf<CreatedApiKey>()([...KEY_FIELDS, 'key'], [...KEY_REQUIRED, 'key']),
  'GET /ext/locks[]': fieldsOf<LockHealth>()(
    [...LOCK_HEALTH_FIELDS, ...LOCK_OWNER_FIELDS],
    LOCK_HEALTH_FIELDS,
  ),
  'GET /ext/locks/{device_id}': fieldsOf<LockHealth>()(
    [...LOCK_HEALTH_FIELDS, ...LOCK_OWNER_FIELDS],
    LOCK_HEALTH_FIELDS,
  ),
  'PATCH /ext/locks/{device_id}': fieldsOf<LockHealth>()(
    [...LOCK_HEALTH_FIELDS, ...LOCK_OWNER_FIELDS],
    LOCK_HEALTH_FIELDS,
  ),
  'POST /ext/locks/{device_id}/commands': fieldsOf<ExtTask>()(EXT_TASK_FIELDS, EXT_TASK_REQUIRED),
  'GET /ext/tasks/{task_id}': fieldsOf<ExtTask>()(EXT_TASK_FIELDS, EXT_TASK_REQUIRED),
  'GET /ext/locks/{device_id}/grants': fieldsOf<OwnerGrantList>()(['grants'], ['grants']),
  'GET /ext/locks/{device_id}/grants[]': fieldsOf<OwnerGrant>()(OWNER_GRANT_FIELDS, OWNER_GRANT_FIELDS),
  'POST /ext/locks/{device_id}/grants': fieldsOf<OwnerGrant>()(OWNER_GRANT_FIELDS, OWNER_GRANT_FIELDS),
  'PATCH /ext/locks/{device_id}/grants/{grant_id}': fieldsOf<OwnerGrant>()(
    OWNER_GRANT_FIELDS,
    OWNER_GRANT_FIELDS,
  ),
  'GET /ext/invitations': fieldsOf<InvitationList>()(['invitations'], ['invitations']),
  'GET /ext/invitations[]': fieldsOf<GuestGrant>()(GUEST_GRANT_FIELDS, GUEST_GRANT_FIELDS),
  'POST /ext/invitations/{grant_id}/accept': fieldsOf<GuestGrant>()(GUEST_GRANT_FIELDS, GUEST_GRANT_FIELDS),
  'POST /ext/invitations/{grant_id}/decline': fieldsOf<GuestGrant>()(GUEST_GRANT_FIELDS, GUEST_GRANT_FIELDS),
  'GET /ext/grants': fieldsOf<GuestGrantList>()(['grants'], ['grants']),
  'GET /ext/grants[]': fieldsOf<GuestGrant>()(GUEST_GRANT_FIELDS, GUEST_GRANT_FIELDS),
  'POST /_sim/locks/{device_id}': fieldsOf<SandboxLockState>()(
    ['device_id', ...SIM_LOCK_CHANGE, ...SIM_LOCK_HEALTH],
    ['device_id', ...SIM_LOCK_CHANGE, ...SIM_LOCK_HEALTH],
  ),
  'POST /_sim/locks': fieldsOf<SandboxAddedLock>()(
    ['device_id', ...SIM_LOCK_CHANGE, ...SIM_LOCK_HEALTH, ...SIM_LOCK_ADDED],
    ['device_id', ...SIM_LOCK_CHANGE, ...SIM_LOCK_HEALTH, ...SIM_LOCK_ADDED],
  ),
  'GET /_sim/clock': fieldsOf<SandboxClock>()(['now', 'epoch_ms'], ['now', 'epoch_ms']),
  'POST /_sim/clock': fieldsOf<SandboxClock>()(['now', 'epoch_ms'], ['now', 'epoch_ms']),
  'POST /_sim/accounts/{email}': fieldsOf<SandboxAccountChanged>()(
    ['email', 'password_changed', 'deleted'],
    ['email', 'password_changed', 'deleted'],
  ),
  'GET /_sim/mailbox': fieldsOf<SandboxMail>()(
    ['to', 'subject', 'text', 'sent_at'],
    ['to', 'subject', 'text', 'sent_at'],
  ),
} as const satisfies Record<string, FieldList>;

/** The access point of a lock (`access_point` of `GET /ext/locks/{device_id}`): all its fields, always. */
const AP_FIELDS = ['id', 'name', 'online', 'last_seen_at', 'firmware', 'signal', 'protocol_version'] as const;
export const ACCESS_POINT_FIELDS = fieldsOf<LockAccessPoint>()(AP_FIELDS, AP_FIELDS);

/** The documented request bodies, by `METHOD path`. */
export const REQUEST_FIELDS = {
  'POST /public/lock/{device_id}': fieldsOf<{ command: Command }>()(['command'], ['command']),
  'POST /public/partners/automation': fieldsOf<PartnerAutomationRequest>()(
    ['command', 'apikey', 'device_id'],
    ['command', 'apikey', 'device_id'],
  ),
  'POST /v1/accounts/login': fieldsOf<{ email: string; password: string }>()(
    ['email', 'password'],
    ['email', 'password'],
  ),
  'POST /v1/locks/{lockId}/control': fieldsOf<{ type: V1ControlType }>()(['type'], ['type']),
  'PUT /ext/webhook': fieldsOf<WebhookSettings>()(['url', 'method', 'retries'], ['url']),
  'POST /ext/webhook-endpoints': fieldsOf<WebhookEndpointInput>()(
    ['url', 'types', 'device_ids', 'retries', 'enabled'],
    ['url'],
  ),
  'PATCH /ext/webhook-endpoints/{id}': fieldsOf<Partial<WebhookEndpointInput>>()(
    ['url', 'types', 'device_ids', 'retries', 'enabled'],
    [],
  ),
  // Any of them, at least one (minProperties: 1).
  'PATCH /ext/locks/{device_id}': fieldsOf<LockSettings>()(LOCK_SETTINGS, []),
  'POST /ext/keys': fieldsOf<ApiKeyInput>()(['name', 'scopes', 'lock_ids', 'expires_at'], []),
  'POST /ext/locks/{device_id}/commands': fieldsOf<{ command: Command }>()(['command'], ['command']),
  'POST /ext/locks/{device_id}/grants': fieldsOf<GrantInvitation>()(
    ['email', ...GRANT_TERMS],
    ['email', 'role'],
  ),
  'PATCH /ext/locks/{device_id}/grants/{grant_id}': fieldsOf<GrantTerms>()(GRANT_TERMS, []),
  'POST /_sim/locks/{device_id}': fieldsOf<SandboxLockChange>()(
    [...SIM_LOCK_CHANGE, ...SIM_LOCK_HEALTH_CHANGE],
    [],
  ),
  'POST /_sim/locks': fieldsOf<SandboxNewLock>()(
    ['owner', 'nickname', 'locked', 'battery', 'latency_ms'],
    ['owner'],
  ),
  // One of the two is needed (minProperties: 1): neither is required alone.
  'POST /_sim/accounts/{email}': fieldsOf<Partial<SandboxAccountChange>>()(['password', 'deleted'], []),
  'POST /_sim/clock': fieldsOf<{ advance_seconds: number }>()(['advance_seconds'], ['advance_seconds']),
} as const satisfies Record<string, FieldList>;

/** Every member of the string union `T`, as a runtime list; the compiler refuses a list that misses one. */
export function valuesOf<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): readonly string[] => list;
}
