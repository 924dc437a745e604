/**
 * One error class per documented error answer (docs/errors.md), plus the SDK's own failures
 * (a failed or timed-out task, a webhook that does not verify).
 *
 * Every error answer of the server is a {@link LockcloudError} with `status`, `code` (the v3 `error`
 * string without its wait, or the v1 integer) and, where the server gave one, `retryAfterSeconds`.
 */
export * from './errors-base.js';
export * from './errors-v1.js';
export * from './errors-v3.js';
