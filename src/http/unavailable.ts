import type { FastifyRequest } from 'fastify';
import { type BackendUnavailableError, isBackendUnavailable } from '../app/unavailable.ts';

/**
 * A backend the request needs cannot be reached (app/unavailable.ts): every surface answers 503 in
 * its own shape (docs/errors.md) with this Retry-After. A database restart takes seconds; clients
 * that honour the header come back soon after, and /readyz tells a load balancer meanwhile.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** The error's message for the sandbox, extension and dashboard bodies: no host, no driver detail. */
export const UNAVAILABLE_MESSAGE =
  'The service is briefly unavailable (a backend it needs is away). Try again.';

/**
 * Whether `error` is a backend being away; when it is, logs it as a warning (an outage of a
 * dependency, not a bug of ours: the request id ties the answer to the line). The error pipeline
 * (error-pipeline.ts) answers the surface's 503 with Retry-After.
 */
export function isUnavailable(error: unknown, request: FastifyRequest): error is BackendUnavailableError {
  if (!isBackendUnavailable(error)) return false;
  request.log.warn(
    { backend: error.backend, reason: error.message },
    'a backend is unavailable: answered 503',
  );
  return true;
}
