/**
 * The Apps page's developer card (issue 24): the apps the account registered, each with its client
 * id to copy, its kind, redirect URIs and the beginning of its secret; the form that registers one
 * (a confidential app's secret then shown once, as a new API key is); and per app an edit form, a
 * new secret (confidential apps) and deletion, which ends every authorization of it at once.
 */
import type { OAuthApp } from '../../../domain/oauth-app.ts';
import type { Revealed } from '../flash.ts';
import { type Html, html, when } from '../html.ts';
import { csrfField, type PageContext } from './layout.ts';

/** The register form's name in a refusal's values (an edit form's is its app's id). */
export const REGISTER_FORM = 'register';

/** What the card needs of the page's view. */
export interface YourAppsView {
  readonly apps: readonly OAuthApp[];
  readonly revealed?: Revealed;
  readonly errors?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, string>>;
}

const KIND_WORDS = {
  confidential: 'Confidential: a server that keeps a secret',
  public: 'Public: a native or single-page app, PKCE only',
} as const;

interface TextOptions {
  /** '' for the register form (f-name...), the app's id for its edit form (f-<id>-name...). */
  readonly form: string;
  readonly name: string;
  readonly label: string;
  readonly value: string;
  readonly hint?: string;
  readonly error?: string | undefined;
  readonly lines?: number;
}

/** A labelled input or textarea; its hint and error tied to it as layout.ts's field() does. */
function textField(o: TextOptions): Html {
  const id = o.form === '' ? `f-${o.name}` : `f-${o.form}-${o.name}`;
  const describedBy = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = html` id="${id}" name="${o.name}" required${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
    o.error ? html` aria-invalid="true"` : ''
  }`;
  const control =
    o.lines === undefined
      ? html`<input type="text"${common} value="${o.value}">`
      : html`<textarea rows="${o.lines}" spellcheck="false"${common}>${o.value}</textarea>`;
  return html`<div class="field${o.error ? ' field-invalid' : ''}">
<label for="${id}">${o.label}</label>
${control}
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ''}
</div>`;
}

const URIS_HINT =
  'One a line, matched exactly. https, or http to 127.0.0.1, [::1] or localhost; a public app may also use its own scheme (com.example.app:/callback). No #fragment.';

/** The refused form's errors and values when `form` is the one refused, else the given values. */
function formState(v: YourAppsView, form: string) {
  const refused = v.values?.form === form;
  return {
    errors: refused ? (v.errors ?? {}) : {},
    values: refused ? v.values : undefined,
  };
}

function reveal(v: YourAppsView): Html {
  if (v.revealed?.kind !== 'client-secret') return html``;
  return html`<div class="reveal" role="status">
<p><strong>Copy your new client secret now.</strong> It is shown only once: after you leave or refresh this page, only its beginning is kept.</p>
<p>Client id <code id="revealed-client-id" data-testid="revealed-client-id">${v.revealed.clientId ?? ''}</code></p>
<div class="row"><code class="secret" id="revealed-client-secret" data-testid="revealed-client-secret">${v.revealed.value}</code>
<button type="button" class="secondary copy" data-copy="revealed-client-secret">Copy</button></div>
</div>`;
}

function appItem(ctx: PageContext, v: YourAppsView, a: OAuthApp): Html {
  const { errors, values } = formState(v, a.id);
  const refused = values !== undefined;
  const base = `/dashboard/apps/${a.id}`;
  const copyId = `client-${a.id}`;
  return html`<li class="app-item" data-app-id="${a.id}">
<h3>${a.name}</h3>
<dl class="facts">
<dt>Client id</dt><dd><div class="row"><code class="secret" id="${copyId}" data-col="client-id">${a.id}</code>
<button type="button" class="secondary copy" data-copy="${copyId}" aria-label="Copy the client id of ${a.name}">Copy</button></div></dd>
<dt>Kind</dt><dd data-col="kind">${KIND_WORDS[a.kind]}</dd>
<dt>Secret</dt><dd data-col="secret">${a.secretPrefix === null ? 'None (PKCE only)' : html`<code>${a.secretPrefix}…</code>`}</dd>
<dt>Redirect URIs</dt><dd data-col="redirect-uris">${a.redirectUris.map((u, i) => html`${i > 0 ? html`<br>` : ''}<code>${u}</code>`)}</dd>
<dt>Registered</dt><dd data-col="created">${when(a.createdAt)}</dd>
</dl>
<details class="app-edit"${refused ? html` open` : ''}><summary>Edit<span class="visually-hidden"> ${a.name}</span></summary>
<form method="post" action="${base}" class="stack" novalidate>${csrfField(ctx.csrf)}
${textField({ form: a.id, name: 'name', label: 'Name', value: values?.name ?? a.name, error: errors.name })}
${textField({ form: a.id, name: 'redirect_uris', label: 'Redirect URIs', value: values?.redirect_uris ?? a.redirectUris.join('\n'), hint: URIS_HINT, error: errors.redirect_uris, lines: 3 })}
<div><button type="submit" class="secondary" aria-label="Save ${a.name}">Save</button></div>
</form>
</details>
<div class="button-row">
${
  a.kind === 'confidential'
    ? html`<form method="post" action="${base}/secret">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="New secret for ${a.name}">New secret</button></form>`
    : ''
}
<form method="post" action="${base}/delete">${csrfField(ctx.csrf)}<button type="submit" class="danger-link" aria-label="Delete ${a.name}" aria-describedby="delete-${a.id}">Delete</button></form>
</div>
<p class="muted hint" id="delete-${a.id}">${
    a.kind === 'confidential' ? 'A new secret stops the old one at once. ' : ''
  }Deleting the app ends every authorization of it at once: every token it holds stops working.</p>
</li>`;
}

function registerForm(ctx: PageContext, v: YourAppsView): Html {
  const { errors, values } = formState(v, REGISTER_FORM);
  const kind = values?.kind === 'public' ? 'public' : 'confidential';
  const checked = (on: boolean) => (on ? html` checked` : '');
  const kindError = errors.kind;
  return html`<form method="post" action="/dashboard/apps" class="stack" novalidate data-testid="register-app">${csrfField(ctx.csrf)}
<h3>Register an app</h3>
${textField({ form: '', name: 'name', label: 'Name', value: values?.name ?? '', hint: 'Shown to owners when the app asks for access, at most 80 characters.', error: errors.name })}
${textField({ form: '', name: 'redirect_uris', label: 'Redirect URIs', value: values?.redirect_uris ?? '', hint: URIS_HINT, error: errors.redirect_uris, lines: 3 })}
<fieldset class="field choices${kindError ? ' field-invalid' : ''}" id="f-kind"${kindError ? html` aria-describedby="f-kind-error"` : ''}>
<legend>Kind</legend>
<label><input type="radio" name="kind" value="confidential"${checked(kind === 'confidential')}> Confidential: a server that keeps a secret</label>
<label><input type="radio" name="kind" value="public"${checked(kind === 'public')}> Public: a native or single-page app, PKCE only</label>
${kindError ? html`<p class="field-error" id="f-kind-error">${kindError}</p>` : ''}
</fieldset>
<button type="submit" class="primary">Register the app</button>
</form>`;
}

export function yourAppsCard(ctx: PageContext, v: YourAppsView): Html {
  return html`<section class="card" aria-labelledby="your-apps-title">
<h2 id="your-apps-title">Your apps</h2>
<p class="muted">For developers: register an app to let lockcloud owners authorize it through OAuth 2.0 (authorization code with PKCE). Its client id is public; a confidential app’s secret is shown once.</p>
${reveal(v)}
${
  v.apps.length === 0
    ? html`<p class="muted" data-testid="no-apps">You have registered no app.</p>`
    : html`<ul class="app-list" data-testid="apps">${v.apps.map((a) => appItem(ctx, v, a))}</ul>`
}
${registerForm(ctx, v)}
</section>`;
}
