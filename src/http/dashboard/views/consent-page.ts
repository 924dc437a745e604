/**
 * The consent page (issue 24): an app asks to act on the owner's locks; the owner sees who asks,
 * each scope in words, picks the scopes and the locks, and allows or denies.
 */
import type { ConsentRequest } from '../../../app/oauth/consents.ts';
import { SCOPE_WORDS } from '../../../domain/oauth-app.ts';
import { type Html, html } from '../html.ts';
import { authLayout, csrfField, type Notice, notice } from './layout.ts';

export interface ConsentView {
  readonly csrf: string;
  readonly email: string;
  readonly request: ConsentRequest;
  /** Where the answer goes: the redirect URI's origin (or scheme), shown so the owner knows. */
  readonly returnsTo: string;
  readonly notice?: Notice;
  readonly errors?: Readonly<Record<string, string>>;
  /** What the refused form held, to refill it. */
  readonly picked?: { readonly scopes: readonly string[]; readonly lockIds: readonly string[] | null };
}

const fieldError = (name: string, error: string | undefined): Html =>
  error === undefined ? html`` : html`<p class="field-error" id="f-${name}-error">${error}</p>`;

export function consentPage(v: ConsentView): Html {
  const { app, asked, locks, remembered } = v.request;
  const previous = v.picked ?? (remembered && { scopes: remembered.scopes, lockIds: remembered.lockIds });
  const scopeOn = (s: string) => (previous === undefined ? true : previous.scopes.includes(s));
  const some = previous?.lockIds != null;
  const lockOn = (id: string) => previous?.lockIds?.includes(id) ?? false;
  const checked = (on: boolean) => (on ? html` checked` : '');
  const scopeError = v.errors?.scopes;
  const lockError = v.errors?.lock_ids;
  return authLayout(
    `Authorize ${app.name}`,
    html`<h1>Authorize <span data-testid="app-name">${app.name}</span></h1>
${notice(v.notice)}
<p><strong>${app.name}</strong> asks to use your lockcloud account <strong>${v.email}</strong>. Only allow apps you trust: it will act for you, and its actions are logged with its name.</p>
<form method="post" class="stack" data-testid="consent">${csrfField(v.csrf)}
<fieldset class="field choices${scopeError ? ' field-invalid' : ''}" id="f-scopes"${scopeError ? html` aria-describedby="f-scopes-error"` : ''}>
<legend>It may</legend>
${asked.map(
  (s) =>
    html`<label><input type="checkbox" name="scope" value="${s}"${checked(scopeOn(s))}> ${SCOPE_WORDS[s]} <code class="muted">${s}</code></label>`,
)}
${fieldError('scopes', scopeError)}
</fieldset>
<fieldset class="field choices${lockError ? ' field-invalid' : ''}" id="f-lock_ids"${lockError ? html` aria-describedby="f-lock_ids-error"` : ''}>
<legend>On which locks</legend>
<label><input type="radio" name="locks" value="all"${checked(!some)}> Every lock you own, also those you add later</label>
<label><input type="radio" name="locks" value="some"${checked(some)}> Only these:</label>
${
  locks.length === 0
    ? html`<p class="muted">You own no locks yet.</p>`
    : locks.map(
        (l) =>
          html`<label class="indent"><input type="checkbox" name="lock" value="${l.deviceId}"${checked(lockOn(l.deviceId))}> ${l.name} <code class="muted">${l.deviceId}</code></label>`,
      )
}
${fieldError('lock_ids', lockError)}
</fieldset>
<p class="muted">You will then be sent back to <code data-testid="returns-to">${v.returnsTo}</code>. You can withdraw this at any time under Apps.</p>
<div class="row">
<button type="submit" name="decision" value="allow" class="primary" data-testid="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary" data-testid="deny">Deny</button>
</div>
</form>`,
  );
}

/** The request can no longer be answered here: expired, already answered, or opened elsewhere. */
export function consentGonePage(message: string): Html {
  return authLayout(
    'Authorization request ended',
    html`<h1>Authorization request ended</h1>
<p data-testid="consent-gone">${message}</p>
<p><a href="/dashboard/locks">Go to your locks</a></p>`,
  );
}

/** The app answered without asking, reached after the login form: on by the Refresh header. */
export function consentContinuePage(appName: string, returnTo: string): Html {
  return authLayout(
    'Back to the app',
    html`<h1>Back to the app</h1>
<p data-testid="consent-continue">Taking you back to ${appName}…</p>
<p><a href="${returnTo}">Continue</a></p>`,
  );
}
