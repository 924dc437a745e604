/**
 * The Apps page (issue 24): the apps the account authorized to act on its locks, each with what it
 * may do, on which locks, since when and when it last did, and a button that revokes it at once;
 * then the apps the account registers as a developer (your-apps-card.ts).
 */
import type { OAuthApp, OAuthConsent } from '../../../domain/oauth-app.ts';
import { SCOPE_WORDS } from '../../../domain/oauth-app.ts';
import type { Revealed } from '../flash.ts';
import { type Html, html, when } from '../html.ts';
import { appLayout, csrfField, type Notice, notice, type PageContext } from './layout.ts';
import { yourAppsCard } from './your-apps-card.ts';

export { REGISTER_FORM } from './your-apps-card.ts';

export interface AppsView {
  /** The apps the account authorized, most recent first. */
  readonly authorized: readonly { readonly consent: OAuthConsent; readonly app: OAuthApp }[];
  /** The apps the account registered. */
  readonly apps: readonly OAuthApp[];
  /** The account's own locks by id: a consent's locks are named by nickname. */
  readonly nicknames: ReadonlyMap<string, string>;
  readonly notice?: Notice;
  /** A new client secret, shown this once. */
  readonly revealed?: Revealed;
  /** A refused form's errors by field, and its values (`form`: which form, REGISTER_FORM or an app id). */
  readonly errors?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, string>>;
}

function locksWords(consent: OAuthConsent, nicknames: ReadonlyMap<string, string>): string {
  if (consent.lockIds === null) return 'Every lock you own, also those you add later';
  return consent.lockIds.map((id) => nicknames.get(id) ?? id).join(', ');
}

function authorizedRow(
  ctx: PageContext,
  v: AppsView,
  { consent, app }: { consent: OAuthConsent; app: OAuthApp },
): Html {
  return html`<li class="app-item" data-authorized-app="${app.id}">
<h3>${app.name}</h3>
<dl class="facts">
<dt>Client id</dt><dd><code>${app.id}</code></dd>
<dt>It may</dt><dd data-col="scopes"><ul class="scope-words">${consent.scopes.map(
    (s) => html`<li>${SCOPE_WORDS[s]} <code class="muted">${s}</code></li>`,
  )}</ul></dd>
<dt>On</dt><dd data-col="locks">${locksWords(consent, v.nicknames)}</dd>
<dt>Authorized</dt><dd data-col="granted">${when(consent.grantedAt)}</dd>
<dt>Last used</dt><dd data-col="last-used">${when(consent.lastUsedAt)}</dd>
</dl>
<form method="post" action="/dashboard/apps/authorized/${app.id}/revoke" class="button-row">${csrfField(ctx.csrf)}<button type="submit" class="danger" aria-label="Revoke ${app.name}">Revoke</button></form>
</li>`;
}

function authorizedCard(ctx: PageContext, v: AppsView): Html {
  return html`<section class="card" aria-labelledby="authorized-title">
<h2 id="authorized-title">Apps you authorized</h2>
<p class="muted">Apps you allowed to act on your locks. Revoking one ends its access at once: every token it holds stops working, and it must ask you again.</p>
${
  v.authorized.length === 0
    ? html`<p class="muted" data-testid="no-authorized">You have not authorized any app.</p>`
    : html`<ul class="app-list" data-testid="authorized">${v.authorized.map((a) => authorizedRow(ctx, v, a))}</ul>`
}
</section>`;
}

export function appsPage(ctx: PageContext, v: AppsView): Html {
  const body = html`${notice(v.notice)}
${authorizedCard(ctx, v)}
${yourAppsCard(ctx, v)}`;
  return appLayout(ctx, 'apps', 'Apps', body, ['copy.js']);
}
