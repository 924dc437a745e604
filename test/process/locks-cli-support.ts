/**
 * Shared by the `lockcloud locks` test files: the CLI against a test server, and what a run that
 * succeeded or failed must look like off a terminal.
 */
import assert from 'node:assert/strict';
import { type Run, startCli } from '../support/cli.ts';
import { getLock, OWNER_KEY, type TestServer } from '../support/server.ts';

export type { Run };

/** The CLI with the server's URL and the owner's key in the environment (unless `env` says otherwise). */
export function locksCli(
  t: TestServer,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<Run> {
  return startCli(args, { env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY, ...env } }).done;
}

// Anything a spinner or a progress line would write: carriage returns, escapes, other C0 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f]/;

export function ok(run: Run, stdout: RegExp): void {
  assert.equal(run.code, 0, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stdout, stdout);
  assert.equal(run.stderr, '', 'nothing on stderr off a terminal');
}

/** Exit code, one readable line on stderr, no stack trace, no control characters. */
export function failed(run: Run, code: number, message: RegExp): void {
  assert.equal(run.code, code, `exit code; stdout: ${run.stdout}; stderr: ${run.stderr}`);
  assert.match(run.stderr, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'a stack trace was printed');
  assert.doesNotMatch(run.stderr, CONTROL);
}

export async function lockState(
  t: TestServer,
  id: string,
): Promise<{ locked: boolean; battery: number; responsive: boolean }> {
  return (await (await getLock(t, id)).json()) as { locked: boolean; battery: number; responsive: boolean };
}
