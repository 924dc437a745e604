import { Value } from 'typebox/value';
import { normalizeEmail } from '../../domain/account.ts';
import { webhookUrlProblem } from '../../domain/webhook.ts';
import { Seed } from './schema.ts';

export class SeedError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the seed is not valid:\n  ${problems.join('\n  ')}`);
    this.name = 'SeedError';
  }
}

/** `/locks/0/battery` -> `locks[0].battery`: how people write the path to a field. */
function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter((p) => p !== '');
  if (extra !== undefined) parts.push(extra);
  let name = 'seed';
  for (const part of parts) name += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  return name;
}

function schemaProblems(input: unknown): string[] {
  const problems: string[] = [];
  for (const error of Value.Errors(Seed, input)) {
    // The "schema is false" entries repeat the additionalProperties ones with the field named; keep those.
    if (error.keyword === 'additionalProperties') continue;
    if (error.keyword === 'required') {
      const missing = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      for (const field of missing) problems.push(`${fieldName(error.instancePath, field)}: is required`);
      continue;
    }
    const message =
      error.keyword === 'boolean'
        ? 'is not a known field'
        : error.keyword === 'pattern' && error.instancePath.endsWith('/device_id')
          ? 'must be a UUID'
          : error.message;
    problems.push(`${fieldName(error.instancePath)}: ${message}`);
  }
  return problems;
}

/** Cross-references the schema cannot express: unique names, and every account named exists. */
function referenceProblems(seed: Seed): string[] {
  const problems: string[] = [];
  const emails = new Set<string>();
  (seed.accounts ?? []).forEach((account, i) => {
    const email = normalizeEmail(account.email);
    if (emails.has(email)) problems.push(`seed.accounts[${i}].email: ${account.email} appears twice`);
    emails.add(email);
  });
  const known = (list: string, i: number, field: string, email: string): void => {
    if (!emails.has(normalizeEmail(email)))
      problems.push(`seed.${list}[${i}].${field}: no account ${email} in seed.accounts`);
  };
  const keys = new Set<string>();
  (seed.api_keys ?? []).forEach((key, i) => {
    known('api_keys', i, 'account', key.account);
    if (keys.has(key.key)) problems.push(`seed.api_keys[${i}].key: appears twice`);
    keys.add(key.key);
  });
  const accessPoints = new Map<string, string>();
  (seed.access_points ?? []).forEach((ap, i) => {
    const id = ap.id.toLowerCase();
    if (accessPoints.has(id)) problems.push(`seed.access_points[${i}].id: ${ap.id} appears twice`);
    accessPoints.set(id, normalizeEmail(ap.account));
    known('access_points', i, 'account', ap.account);
  });
  const devices = new Set<string>();
  (seed.locks ?? []).forEach((lock, i) => {
    const id = lock.device_id.toLowerCase();
    if (lock.access_point_id !== undefined) {
      const apAccount = accessPoints.get(lock.access_point_id.toLowerCase());
      if (apAccount === undefined)
        problems.push(
          `seed.locks[${i}].access_point_id: no access point ${lock.access_point_id} in seed.access_points`,
        );
      else if (apAccount !== normalizeEmail(lock.owner))
        problems.push(`seed.locks[${i}].access_point_id: the access point belongs to another account`);
    }
    if (devices.has(id)) problems.push(`seed.locks[${i}].device_id: ${lock.device_id} appears twice`);
    devices.add(id);
    known('locks', i, 'owner', lock.owner);
    (lock.shared_with ?? []).forEach((email, j) => {
      known('locks', i, `shared_with[${j}]`, email);
      if (normalizeEmail(email) === normalizeEmail(lock.owner)) {
        problems.push(`seed.locks[${i}].shared_with[${j}]: the owner cannot be shared with`);
      }
    });
  });
  const hooked = new Set<string>();
  (seed.webhooks ?? []).forEach((hook, i) => {
    known('webhooks', i, 'account', hook.account);
    const email = normalizeEmail(hook.account);
    if (hooked.has(email)) problems.push(`seed.webhooks[${i}].account: one webhook per account`);
    hooked.add(email);
    // The rules the API and the admin CLI apply: no credentials in the URL, a URL that parses.
    const problem = webhookUrlProblem(hook.url);
    if (problem !== undefined) problems.push(`seed.webhooks[${i}].url: ${problem}`);
  });
  return problems;
}

/** Checks a parsed seed file; every problem is reported at once, each naming its field. */
export function validateSeed(input: unknown): Seed {
  const problems = schemaProblems(input);
  if (problems.length > 0) throw new SeedError(problems);
  const seed = input as Seed;
  const references = referenceProblems(seed);
  if (references.length > 0) throw new SeedError(references);
  return seed;
}

export function parseSeed(text: string): Seed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SeedError([`seed: not valid JSON (${(error as Error).message})`]);
  }
  return validateSeed(parsed);
}
