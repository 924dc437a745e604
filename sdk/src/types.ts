/**
 * Request and response types of the lockcloud v3 and v1 APIs, and runtime lists of their unions.
 *
 * `test/sdk/drift.test.ts` checks them against the server's `/openapi.json` (through field lists the
 * compiler ties to these types, in test/sdk/fields.ts), so they cannot drift from the served contract.
 */

/**
 * A v3 command sent to `POST /public/lock/{device_id}`.
 *
 * @example
 * const command: Command = 'unlock';
 */
export type Command = 'lock' | 'unlock' | 'sync';

/**
 * The commands the partner endpoint takes (`sync` is refused there).
 *
 * @example
 * const command: PartnerCommand = 'lock';
 */
export type PartnerCommand = 'lock' | 'unlock';

/**
 * An element of `GET /public/locks` (a bare array).
 *
 * @example
 * const lock: Lock = { device_id: '6f1c…', serial: 'SERIAL000A', nickname: 'Front door' };
 */
export interface Lock {
  /** The lock's UUID. */
  device_id: string;
  serial: string;
  nickname: string;
}

/**
 * `GET /public/lock/{device_id}`: the stored status of one lock.
 *
 * @example
 * const status: LockStatus = { locked: true, battery: 87, responsive: true };
 */
export interface LockStatus {
  /** true = locked, false = unlocked. */
  locked: boolean;
  /** A percentage, 0 to 100. */
  battery: number;
  /** true when the lock answers now. */
  responsive: boolean;
}

/**
 * The answer to an accepted command: the task to poll. It does not mean that the lock moved.
 *
 * @example
 * const accepted: CommandResponse = { task_id: 'a3e0…' };
 */
export interface CommandResponse {
  task_id: string;
}

/**
 * Why a terminated task failed (`error` of the action result).
 *
 * @example
 * const reason: TaskFailureReason = 'JAMMED';
 */
export type TaskFailureReason =
  | 'TIMEOUT'
  | 'DEVICE_UNREACHABLE'
  | 'DEVICE_IS_BUSY'
  | 'JAMMED'
  | 'LOW_BATTERY'
  | 'INTERNAL_ERROR';

/**
 * A task still running: no `successful` key.
 *
 * @example
 * const pending: ProcessingResult = { status: 'processing', task_id: '4f0c…' };
 */
export interface ProcessingResult {
  status: 'processing';
  /** The task asked for. */
  task_id: string;
}

/**
 * A task that ended well.
 *
 * @example
 * const done: SucceededResult = { status: 'terminated', task_id: '4f0c…', successful: true };
 */
export interface SucceededResult {
  status: 'terminated';
  /** The task asked for. */
  task_id: string;
  successful: true;
}

/**
 * A task that ended badly, with its reason.
 *
 * @example
 * const failed: FailedResult = { status: 'terminated', task_id: '4f0c…', successful: false, error: 'TIMEOUT' };
 */
export interface FailedResult {
  status: 'terminated';
  /** The task asked for. */
  task_id: string;
  successful: false;
  error: TaskFailureReason;
}

/**
 * A task that has ended, well or badly.
 *
 * @example
 * const result: TerminatedResult = { status: 'terminated', task_id: '4f0c…', successful: true };
 * if (!result.successful) console.log(result.error);
 */
export type TerminatedResult = SucceededResult | FailedResult;

/**
 * `GET /public/action-result?task_id=…`: narrow on `status`, then on `successful`.
 *
 * @example
 * const result: ActionResult = await client.actionResult(taskId);
 * if (result.status === 'terminated' && !result.successful) console.log(result.error);
 */
export type ActionResult = ProcessingResult | TerminatedResult;

/**
 * The body of `POST /public/partners/automation`, as sent on the wire (the client fills `apikey`).
 *
 * @example
 * const body: PartnerAutomationRequest = { command: 'lock', apikey: KEY, device_id: '6f1c…' };
 */
export interface PartnerAutomationRequest {
  command: PartnerCommand;
  apikey: string;
  device_id: string;
}

/**
 * A v1 control type (`POST /v1/locks/{lockId}/control`).
 *
 * @example
 * const type: V1ControlType = 'unlock';
 */
export type V1ControlType = 'lock' | 'unlock';

/**
 * `POST /v1/accounts/login`: the token to send in `X-Authorization`.
 *
 * @example
 * const login: V1LoginResponse = { authorization: 'tok…' };
 */
export interface V1LoginResponse {
  authorization: string;
}

/**
 * An element of `GET /v1/locks` (inside `{"locks": [...]}`).
 *
 * @example
 * const lock: V1Lock = { device_id: '6f1c…', nickname: 'Front door', is_unlocked: false, api_enabled: true, battery: 87 };
 */
export interface V1Lock {
  device_id: string;
  nickname: string;
  /** true = unlocked, false = locked (the opposite sense of v3's `locked`). */
  is_unlocked: boolean;
  /** Paired with the access point and integration on. */
  api_enabled: boolean;
  battery: number;
}

/**
 * `GET /v1/locks`: the wrapper object around the list.
 *
 * @example
 * const list: V1LockList = { locks: [] };
 */
export interface V1LockList {
  locks: V1Lock[];
}

/**
 * `GET /v1/locks/{lockId}`: a lock's status; the id is not repeated.
 *
 * @example
 * const status: V1LockStatus = { nickname: 'Front door', is_unlocked: false, api_enabled: true, battery: 87 };
 */
export interface V1LockStatus {
  nickname: string;
  is_unlocked: boolean;
  api_enabled: boolean;
  battery: number;
}

/**
 * The body of a webhook `POST` delivery, as {@link verifyWebhook} returns it.
 *
 * @example
 * const payload: WebhookPayload = { device_id: '6f1c…', locked: false, state: 'unlocked' };
 */
export interface WebhookPayload {
  device_id: string;
  locked: boolean;
  state: 'locked' | 'unlocked';
}

// ---- runtime lists of the unions above ----

/**
 * The commands of each endpoint, as runtime lists (checked against the OpenAPI enums).
 *
 * @example
 * if (!(COMMANDS as readonly string[]).includes(input)) throw new Error('not a command');
 */
export const COMMANDS = ['lock', 'unlock', 'sync'] as const satisfies readonly Command[];

/**
 * The partner endpoint's commands.
 *
 * @example
 * PARTNER_COMMANDS.includes('lock'); // true
 */
export const PARTNER_COMMANDS = ['lock', 'unlock'] as const satisfies readonly PartnerCommand[];

/**
 * The v1 control types.
 *
 * @example
 * V1_CONTROL_TYPES.includes('unlock'); // true
 */
export const V1_CONTROL_TYPES = ['lock', 'unlock'] as const satisfies readonly V1ControlType[];

/**
 * Every reason a task can fail with.
 *
 * @example
 * TASK_FAILURE_REASONS.includes('JAMMED'); // true
 */
export const TASK_FAILURE_REASONS = [
  'TIMEOUT',
  'DEVICE_UNREACHABLE',
  'DEVICE_IS_BUSY',
  'JAMMED',
  'LOW_BATTERY',
  'INTERNAL_ERROR',
] as const satisfies readonly TaskFailureReason[];
