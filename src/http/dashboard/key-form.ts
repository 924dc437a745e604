/**
 * The dashboard's "Add a key" form (API Settings) as the limits /ext/keys takes: the owner picks every
 * scope or some, optionally locks and an expiry date. Its refusals name the form's own fields
 * (access, scopes, locks, expires, name) with sentences for a person, not the API's field names.
 */
import type { NewKeyInput } from '../../app/accounts/api-keys.ts';
import { checkFields, DomainError, isDomainError } from '../../domain/errors.ts';
import { SCOPES, type Scope } from '../../domain/scope.ts';

/** The form as sent: each list the checkboxes ticked (none: empty), each text as typed. */
export interface KeyForm {
  readonly access?: string | undefined;
  readonly scopes?: readonly string[];
  readonly locks?: readonly string[];
  readonly expires?: string | undefined;
  readonly name?: string | undefined;
}

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', message, { field });

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * "all" (the default, so a form without the field makes a full-access key as before) or "some". A
 * ticked scope beside "every scope" is refused rather than dropped: the owner meant a narrower key
 * than the one that would be made.
 */
function scopesOf(form: KeyForm): Scope[] | null {
  const access = form.access ?? 'all';
  const ticked = form.scopes ?? [];
  if (access !== 'all' && access !== 'some') throw invalid('access', 'Choose every scope or only some.');
  const unknown = ticked.find((s) => !SCOPES.includes(s as Scope));
  if (unknown !== undefined) throw invalid('scopes', `"${unknown.slice(0, 40)}" is not a scope.`);
  if (access === 'all') {
    if (ticked.length > 0)
      throw invalid('scopes', 'Every scope is chosen: untick these, or choose “Only these scopes”.');
    return null;
  }
  if (ticked.length === 0) throw invalid('scopes', 'Choose at least one scope.');
  return [...new Set(ticked)] as Scope[];
}

const PAST = 'Choose a date after today: the key stops working at 00:00 UTC that day.';

/**
 * A date (the key stops working at 00:00 UTC that day), or nothing: it never expires. The past is
 * refused here too (createWithin would), so it shows beside the form's other errors at once.
 */
function expiryOf(form: KeyForm, nowMs: number): string | null {
  const typed = (form.expires ?? '').trim();
  if (typed === '') return null;
  const at = Date.parse(`${typed}T00:00:00Z`);
  if (!DATE.test(typed) || Number.isNaN(at))
    throw invalid('expires', 'Give a date as YYYY-MM-DD, or leave it empty for a key that never expires.');
  if (at <= nowMs) throw invalid('expires', PAST);
  return `${typed}T00:00:00Z`;
}

/** The form as the API's input; throws INVALID_INPUT naming every wrong field of the form's. */
export function keyInputOfForm(form: KeyForm, nowMs: number): NewKeyInput {
  const [scopes, expiresAt] = checkFields(
    () => scopesOf(form),
    () => expiryOf(form, nowMs),
  );
  const locks = [...new Set(form.locks ?? [])];
  const name = (form.name ?? '').trim();
  return {
    scopes,
    lock_ids: locks.length === 0 ? null : locks,
    expires_at: expiresAt,
    name: name === '' ? null : name,
  };
}

/** The API's field names as the form's, with what to tell a person instead of the API's sentence. */
const FORM_FIELD: Readonly<Record<string, readonly [string, (message: string) => string]>> = {
  scopes: ['scopes', (m) => m],
  lock_ids: ['locks', (m) => m.replace('is not a lock of this account', 'is not one of your locks')],
  expires_at: ['expires', (m) => (/future/.test(m) ? PAST : m)],
  name: ['name', (m) => m],
};

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A refusal of ApiKeys.createWithin renamed to the form's fields (INVALID_INPUT only; anything else
 * is answered as it is). Its messages lose the API's "field: " prefix, which the form shows by place.
 */
export function formRefusal(error: unknown): unknown {
  if (!isDomainError(error) || error.code !== 'INVALID_INPUT') return error;
  const { field, fields } = error.details;
  const each = fields ?? (field === undefined ? {} : { [field]: error.message });
  const renamed: Record<string, string> = {};
  for (const [name, message] of Object.entries(each)) {
    const [to, say] = FORM_FIELD[name] ?? [name, (m: string) => m];
    renamed[to] = capitalized(say(message.replace(/^[a-z_]+: /, '')));
  }
  const [first] = Object.keys(renamed);
  if (first === undefined) return error;
  return new DomainError('INVALID_INPUT', renamed[first] ?? error.message, { field: first, fields: renamed });
}
