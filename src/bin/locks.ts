/**
 * `npm run locks -- <command>` / `lockcloud locks <command>`: the command-line client of the v3 API
 * (and of /ext/locks for `status` and `set`), built on the SDK (and the pure event words of
 * src/domain/event-words.ts, shared with the dashboard; it imports nothing that runs the server).
 *
 *   list | status ID | set ID | lock ID | unlock ID | sync ID | watch | events
 *
 * The base URL and the API key come from --url / --key, else LOCKCLOUD_URL / LOCKCLOUD_API_KEY
 * (default URL http://127.0.0.1:8080). --json prints machine-readable output on stdout.
 *
 * Exit codes: 0 done; 1 the command ran but failed (the task ended unsuccessful, or did not end in
 * --timeout); 2 a usage error; 3 authentication refused (401); 4 refused by the API before running
 * (BAD_PARAMS, NOT_FOUND, CLOUD_INTEGRATION_NOT_ENABLED, LOW_BATTERY, DEVICE_IS_BUSY, THROTTLED,
 * ACCESS_DENY, ...); 5 the server is unreachable, did not answer in time, or answered 5xx.
 */
import { locks } from './locks/program.ts';

export { EXIT } from './locks/exit-codes.ts';
export { locks };

process.exitCode = await locks(process.argv.slice(2));
