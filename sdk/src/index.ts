/**
 * @lockcloud/sdk: typed clients for the lockcloud v3, v1 and extension APIs and for its sandbox,
 * task polling, opt-in retries and webhook verification. No runtime dependency beyond the
 * platform's fetch and Web Crypto. The app's side of OAuth (docs/oauth.md) is oauth.ts.
 *
 * This file is the package's whole public surface, named one by one: test/sdk/package.test.ts
 * holds the exact list, so nothing internal (the HTTP path, the retry loop, the error tables) leaks.
 *
 * @example
 * import { LockcloudClient, TaskFailedError } from '@lockcloud/sdk';
 * const client = new LockcloudClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'lck_…', retry: true });
 * await client.run(deviceId, 'unlock');
 */
export {
  type AccessTokenCredentials,
  type ApiKeyCredentials,
  LockcloudClient,
  type LockcloudClientOptions,
  type WaitOptions,
} from './client.js';
export type { AccessTokenRefresher } from './credential.js';
export {
  AccessDeniedError,
  AccountDeletedError,
  AccountLockedError,
  AuthTokenExpiredByPasswordChangeError,
  AuthTokenExpiredError,
  BadParamsError,
  CloudApiNotEnabledError,
  ConnectionError,
  DeviceBusyError,
  EmailNotVerifiedError,
  type ErrorDetails,
  IntegrationNotEnabledError,
  InternalError,
  InvalidEmailError,
  LockBusyError,
  LockCommandTimeoutError,
  LockcloudError,
  LockJammedError,
  LockLowBatteryError,
  LockNotFoundError,
  LockUnreachableError,
  LowBatteryError,
  MissingAuthTokenError,
  NotFoundError,
  OwnerPermissionRequiredError,
  RequestTimeoutError,
  RequiredFieldEmptyError,
  ServiceUnavailableError,
  TaskFailedError,
  TaskTimeoutError,
  ThrottledError,
  TooManyRequestsError,
  UnauthorizedError,
  V1Error,
  V1InternalError,
  V1NotFoundError,
  V1ServiceUnavailableError,
  V3Error,
  WebhookVerificationError,
  WrongAuthTokenError,
  WrongControlTypeError,
  WrongEmailOrPasswordError,
} from './errors.js';
export type { EventStreamOptions } from './event-stream.js';
export type { EventsApi, EventsOptions } from './events.js';
export type { DeliveriesOptions, WebhookApi } from './ext.js';
export type { GrantsApi } from './grants.js';
export type { CallOptions, ClientOptions, CommandOptions } from './http.js';
export type { KeysApi } from './keys.js';
export type { LocksApi } from './locks.js';
export {
  type AuthorizationUrlOptions,
  authorizationUrl,
  type ExchangeCodeOptions,
  exchangeCode,
  type OAuthClientOptions,
  OAuthError,
  type OAuthScope,
  type OAuthTokens,
  type PkcePair,
  pkcePair,
  type RefreshTokenOptions,
  type RevokeTokenOptions,
  refreshToken,
  revokeToken,
} from './oauth.js';
export type { RetryInfo, RetryOptions } from './retry.js';
export { LockcloudSandboxClient, type LockcloudSandboxClientOptions } from './sandbox.js';
export {
  type ActionResult,
  COMMANDS,
  type Command,
  type CommandResponse,
  type FailedResult,
  type Lock,
  type LockStatus,
  PARTNER_COMMANDS,
  type PartnerCommand,
  type ProcessingResult,
  type SucceededResult,
  TASK_FAILURE_REASONS,
  type TaskFailureReason,
  type TerminatedResult,
  V1_CONTROL_TYPES,
  type V1ControlType,
  type V1Lock,
  type V1LockStatus,
  type WebhookPayload,
} from './types.js';
export type {
  WebhookEndpoint,
  WebhookEndpointDelivery,
  WebhookEndpointDeliveryPage,
  WebhookEndpointInput,
  WebhookEndpointList,
} from './types-endpoints.js';
export type {
  DeliveryAccepted,
  DeliveryStatus,
  EventActor,
  EventPage,
  LockcloudEvent,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  WebhookMethod,
  WebhookSecret,
  WebhookSettings,
} from './types-ext.js';
export type {
  Grant,
  GrantInvitation,
  GrantRole,
  GrantScheduleEntry,
  GrantState,
  GrantTerms,
  GuestGrant,
  GuestGrantList,
  InvitationList,
  OwnerGrant,
  OwnerGrantList,
} from './types-grants.js';
export type { ApiKey, ApiKeyInput, ApiKeyList, ApiKeyScope, CreatedApiKey } from './types-keys.js';
export type {
  BatteryState,
  DoorState,
  ExtTask,
  LockAccessPoint,
  LockHealth,
  LockHealthList,
  LockRole,
  LockSettings,
} from './types-locks.js';
export type {
  SandboxAccountChange,
  SandboxAccountChanged,
  SandboxAddedLock,
  SandboxClock,
  SandboxFailure,
  SandboxLockChange,
  SandboxLockState,
  SandboxMail,
  SandboxNewLock,
} from './types-sandbox.js';
export { LockcloudV1Client, type LockcloudV1ClientOptions } from './v1.js';
export type { EndpointDeliveriesOptions, WebhookEndpointsApi } from './webhook-endpoints.js';
export {
  type VerifyOptions,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookHeaders,
} from './webhooks.js';
