/**
 * API Settings' keys card (issue 23): each key with its limits (scopes, locks, expiry) and its last
 * use with the client address, so the owner can spot a key used from elsewhere; and, once unlocked,
 * the form that adds a key limited to scopes, locks and an expiry date, or with full access.
 */
import type { ApiKey } from '../../../domain/api-key.ts';
import { isUnlimited, SCOPES } from '../../../domain/scope.ts';
import type { Revealed } from '../flash.ts';
import { type Html, html, when } from '../html.ts';
import { csrfField, field, type PageContext } from './layout.ts';

/** What the keys card needs of the page's view. */
export interface KeysCardView {
  readonly unlocked: boolean;
  readonly keys: readonly ApiKey[];
  /** The account's own locks, for the form's checkboxes and to name a key's locks by nickname. */
  readonly locks: readonly { readonly deviceId: string; readonly nickname: string }[];
  /** The server's clock: a key past its expiry is shown expired (the sandbox's clock may run ahead). */
  readonly now: number;
  readonly revealed?: Revealed;
  readonly errors?: Readonly<Record<string, string>>;
  /** The refused form's values, refilled: access, name, expires, and scopes and locks space-separated. */
  readonly keyValues?: Readonly<Record<string, string>>;
}

/** What each scope lets a key do, as the form and docs/security.md say it. */
const SCOPE_TEXT: Record<(typeof SCOPES)[number], string> = {
  'locks:read': 'read locks and command results',
  'locks:operate': 'lock, unlock, sync and change settings (and read)',
  'events:read': 'read the event log',
  'webhooks:manage': 'set webhooks (they hear every lock)',
  'keys:manage': 'make and delete keys within its own limits',
};

function scopesText(k: ApiKey): string {
  if (isUnlimited(k.limits)) return 'Full access';
  return k.limits.scopes === null ? 'Every scope' : k.limits.scopes.join(', ');
}

function locksText(k: ApiKey, names: ReadonlyMap<string, string>): string {
  if (k.limits.lockIds === null) return 'All locks';
  return k.limits.lockIds.map((id) => names.get(id) ?? id).join(', ');
}

function expiryCell(k: ApiKey, now: number): Html {
  const at = k.limits.expiresAt;
  if (at === null) return html`<td data-col="expires">Never</td>`;
  return at <= now
    ? html`<td data-col="expires"><span class="pill pill-warn">expired</span> ${when(at)}</td>`
    : html`<td data-col="expires">${when(at)}</td>`;
}

function keyRow(ctx: PageContext, v: KeysCardView, k: ApiKey, names: ReadonlyMap<string, string>): Html {
  const label = k.name === null ? '' : html` <span class="muted">${k.name}</span>`;
  const remove = v.unlocked
    ? html`<form method="post" action="/dashboard/api-settings/keys/delete">${csrfField(ctx.csrf)}<input type="hidden" name="key" value="${k.id}"><button type="submit" class="danger-link" aria-label="Delete key ${k.prefix}">Delete</button></form>`
    : '';
  return html`<tr data-key-id="${k.id}"><td><code>${k.prefix}…</code>${label}</td>
<td data-col="scopes">${scopesText(k)}</td><td data-col="locks">${locksText(k, names)}</td>${expiryCell(k, v.now)}
<td>${when(k.createdAt)}</td><td data-col="last-used">${when(k.lastUsedAt)}</td><td data-col="last-ip">${k.lastUsedIp ?? '—'}</td>
<td>${remove}</td></tr>`;
}

function reveal(v: KeysCardView): Html {
  if (v.revealed?.kind !== 'key') return html``;
  return html`<div class="reveal" role="status">
<p><strong>Copy your new API key now.</strong> It is shown only once: after you leave or refresh this page, only its beginning is kept.</p>
<div class="row"><code class="secret" id="revealed-key" data-testid="revealed-key">${v.revealed.value}</code>
<button type="button" class="secondary copy" data-copy="revealed-key">Copy</button></div>
</div>`;
}

const fieldError = (name: string, error: string | undefined): Html =>
  error === undefined ? html`` : html`<p class="field-error" id="f-${name}-error">${error}</p>`;

/** A group of checkboxes or radios under a legend, its error tied to it as a field's is. */
function group(name: string, legend: string, body: Html, error: string | undefined, hint?: string): Html {
  const described = [hint ? `f-${name}-hint` : '', error ? `f-${name}-error` : ''].filter(Boolean).join(' ');
  return html`<fieldset class="field choices${error ? ' field-invalid' : ''}" id="f-${name}"${
    described ? html` aria-describedby="${described}"` : ''
  }>
<legend>${legend}</legend>
${hint ? html`<p class="hint" id="f-${name}-hint">${hint}</p>` : ''}
${body}
${fieldError(name, error)}
</fieldset>`;
}

function addKeyForm(ctx: PageContext, v: KeysCardView): Html {
  const values = v.keyValues ?? {};
  const errors = v.errors ?? {};
  const access = values.access === 'some' ? 'some' : 'all';
  const ticked = new Set((values.scopes ?? '').split(' '));
  const lockTicked = new Set((values.locks ?? '').split(' '));
  const checked = (on: boolean) => (on ? html` checked` : '');
  const accessChoices = html`<label><input type="radio" name="access" value="all"${checked(access === 'all')}> Every scope, now and later</label>
<label><input type="radio" name="access" value="some"${checked(access === 'some')}> Only these scopes:</label>
${group(
  'scopes',
  'Scopes',
  html`${SCOPES.map(
    (s) =>
      html`<label><input type="checkbox" name="scope" value="${s}"${checked(ticked.has(s))}> <code>${s}</code> <span class="muted">${SCOPE_TEXT[s]}</span></label>`,
  )}`,
  errors.scopes,
)}`;
  const lockChoices =
    v.locks.length === 0
      ? html`<p class="muted">You own no locks yet.</p>`
      : html`${v.locks.map(
          (l) =>
            html`<label><input type="checkbox" name="lock" value="${l.deviceId}"${checked(lockTicked.has(l.deviceId))}> ${l.nickname} <code class="muted">${l.deviceId}</code></label>`,
        )}`;
  return html`<form method="post" action="/dashboard/api-settings/keys" class="stack" novalidate data-testid="add-key">${csrfField(ctx.csrf)}
<h3>Add a key</h3>
${field({ label: 'Name (optional)', name: 'name', value: values.name ?? '', required: false, hint: 'To tell your keys apart, at most 64 characters.', error: errors.name })}
${group('access', 'What it may do', accessChoices, errors.access)}
${group('locks', 'Locks', lockChoices, errors.locks, 'None ticked: every lock you own, now and later.')}
${field({ label: 'Expires on (optional)', name: 'expires', type: 'date', value: values.expires ?? '', required: false, hint: 'The key stops working at 00:00 UTC that day. Empty: it never expires.', error: errors.expires })}
<button type="submit" class="primary">Add a key</button>
</form>`;
}

export function keysCard(ctx: PageContext, v: KeysCardView): Html {
  const names = new Map(v.locks.map((l) => [l.deviceId, l.nickname]));
  return html`<section class="card" aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
<p class="muted">Send a key as <code>Authorization: &lt;key&gt;</code> to the v3 API under <code>/public</code>, or to <code>/ext</code>.</p>
${reveal(v)}
${
  v.keys.length === 0
    ? html`<p class="muted" data-testid="no-keys">No keys yet.</p>`
    : html`<div class="table-wrap"><table class="table" data-testid="keys">
<thead><tr><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Locks</th><th scope="col">Expires</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Last address</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${v.keys.map((k) => keyRow(ctx, v, k, names))}</tbody></table></div>`
}
${v.unlocked ? addKeyForm(ctx, v) : ''}
</section>`;
}
