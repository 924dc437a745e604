/**
 * A backend a request needs cannot be reached right now (the database restarting or failing over,
 * Redis away): a temporary condition, neither the request's fault nor a bug. Adapters throw this in
 * place of their driver's connection errors, keeping the driver's message; every API answers it
 * `503` with `Retry-After` in its own shape (docs/errors.md) rather than a 500, while /readyz reports
 * the same backend failing. The driver pools reconnect by themselves: no restart is needed.
 */
export type Backend = 'database' | 'redis';

export class BackendUnavailableError extends Error {
  override name = 'BackendUnavailableError';

  constructor(
    readonly backend: Backend,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

export function isBackendUnavailable(error: unknown): error is BackendUnavailableError {
  return error instanceof BackendUnavailableError;
}
