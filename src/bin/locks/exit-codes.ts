/**
 * The exit codes of `lockcloud locks`, the CLI's own errors, and the mapping of any failure to its
 * exit code (with the note printed on stderr).
 */
import { CommanderError } from 'commander';
import { LockcloudError, UnauthorizedError } from '../../../sdk/src/index.ts';
import { NAME, note } from './output.ts';

/** The exit codes, as documented in README.md "## Command-line client". */
export const EXIT = { ok: 0, failed: 1, usage: 2, auth: 3, refused: 4, unreachable: 5 } as const;

/** The exit codes as `lockcloud locks --help` (and each of its commands' --help) lists them. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  done (lock, unlock and sync: the lock confirmed the command)
  1  the command ran but failed: the task ended unsuccessful (the reason on stderr, e.g. JAMMED),
     or was still running after --timeout
  2  usage error: an unknown command or option, a missing argument, no API key, a bad URL
  3  authentication refused (401: the key is unknown or deleted)
  4  refused by the API before running, the code on stderr: BAD_PARAMS, NOT_FOUND,
     CLOUD_INTEGRATION_NOT_ENABLED, LOW_BATTERY, DEVICE_IS_BUSY, THROTTLED, ACCESS_DENY
  5  the server is unreachable, gave no answer within --request-timeout, or answered 5xx
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command ran and failed: the message is printed, the exit code is 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

/** No answer from the server (network failure or request timeout). */
export class Unreachable extends Error {
  override name = 'Unreachable';
}

export function exitCodeOf(error: unknown): number {
  // Commander has already printed its own message (or the help asked for).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) {
    note(error.message);
    return EXIT.usage;
  }
  if (error instanceof CommandFailed) {
    note(error.message);
    return EXIT.failed;
  }
  if (error instanceof Unreachable) {
    note(error.message);
    return EXIT.unreachable;
  }
  if (error instanceof UnauthorizedError || (error instanceof LockcloudError && error.status === 401)) {
    note('UNAUTHORIZED: the API key is missing, unknown or deleted');
    return EXIT.auth;
  }
  if (error instanceof LockcloudError) {
    const request = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    if (error.status >= 500) {
      note(`the server failed: ${String(error.code)}${request}`);
      return EXIT.unreachable;
    }
    const wait = error.retryAfterSeconds === undefined ? '' : `, try again in ${error.retryAfterSeconds} s`;
    // /ext answers say what was wrong (`type: must be ...`); v3's carry the code alone.
    const said = (error.body as { message?: unknown } | null)?.message;
    const why = typeof said === 'string' ? `: ${said}` : explain(String(error.code));
    note(`refused: ${String(error.code)}${wait}${why}`);
    return EXIT.refused;
  }
  if (error instanceof TypeError && /id is required/.test(error.message)) {
    note('a device id is required');
    return EXIT.usage;
  }
  process.stderr.write(`${NAME}: unexpected failure\n${(error as Error).stack ?? String(error)}\n`);
  return EXIT.failed;
}

function explain(code: string): string {
  switch (code) {
    case 'BAD_PARAMS':
      return ' (an unknown or foreign device id, or a bad parameter)';
    case 'CLOUD_INTEGRATION_NOT_ENABLED':
      return ' (turn cloud integration on in the app, and check the access point)';
    case 'LOW_BATTERY':
      return ' (change the batteries)';
    case 'DEVICE_IS_BUSY':
      return ' (another command runs on the lock, or the app holds it; --retry waits)';
    case 'THROTTLED':
      return ' (over the rate limit; --retry waits)';
    case 'ACCESS_DENY':
    case 'Forbidden':
      return ' (this address is blocked for a while)';
    case 'NOT_FOUND':
      return ' (is the base URL right?)';
    default:
      return '';
  }
}
