/** The checks both secrets tests make of what the flow left: error answers and the CLI's output. */
import type { Finding, Kind, Plaintexts } from './plaintexts.ts';
import type { Answer } from './recorder.ts';
import { type CliRun, OAUTH_REDIRECT } from './secrets-flow.ts';

const ALL_BUT_CSRF: readonly Kind[] = [
  'password',
  'v1 token',
  'api key',
  'webhook secret',
  'code',
  'session',
  'server key',
  'device secret',
  'oauth client secret',
  'oauth code',
  'oauth token',
];

/**
 * Every answer of 400 or more, body and headers (Set-Cookie aside: a browser's own cookie), and the
 * Location of every redirect: no secret. A CSRF token may be in an error page's re-rendered form,
 * and an authorization code in the redirect to its app's registered redirect URI, the one way it
 * travels (RFC 6749 section 4.1.2).
 */
export function errorAnswerFindings(secrets: Plaintexts, answers: readonly Answer[]): Finding[] {
  const findings: Finding[] = [];
  for (const a of answers) {
    const where = `${a.status} answer to ${a.what}`;
    if (a.status >= 400) findings.push(...secrets.find(`${a.headers}\n\n${a.body}`, where, ALL_BUT_CSRF));
    else if (a.status >= 300) {
      const toTheApp = a.headers.includes(`location: ${OAUTH_REDIRECT}?`);
      const found = secrets.find(a.headers, `${where} (headers)`);
      findings.push(...found.filter((f) => !(toTheApp && f.kind === 'oauth code')));
    }
  }
  return findings;
}

/** The CLI's stderr never; its stdout only the secret a run has just made (set-webhook, register-ap). */
export function outputFindings(secrets: Plaintexts, runs: readonly CliRun[]): Finding[] {
  const findings: Finding[] = [];
  for (const run of runs) {
    const where = `admin ${run.args[0]}`;
    findings.push(...secrets.find(run.stderr, `${where} stderr`));
    const shown = secrets.find(run.stdout, `${where} stdout`);
    findings.push(
      ...shown.filter((f) => !run.shows.includes(secrets.all.find((p) => p.label === f.label)?.value ?? '')),
    );
  }
  return findings;
}
