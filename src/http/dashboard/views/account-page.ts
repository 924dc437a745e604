import { type Html, html, when } from '../html.ts';
import { appLayout, csrfField, field, type Notice, notice, type PageContext } from './layout.ts';

export interface AccountView {
  readonly hasPassword: boolean;
  readonly createdAt: number;
  readonly notice?: Notice;
  readonly errors?: Readonly<Record<string, string>>;
}

export function accountPage(ctx: PageContext, v: AccountView): Html {
  const body = html`${notice(v.notice)}
<section class="card" aria-labelledby="profile-title">
<h2 id="profile-title">Profile</h2>
<dl class="facts"><dt>E-mail</dt><dd>${ctx.email ?? ''}</dd><dt>Member since</dt><dd>${when(v.createdAt)}</dd></dl>
<p><a href="/dashboard/account/activity">Account activity</a>: what happened to your locks, keys, webhook and password.</p>
</section>
<section class="card" aria-labelledby="password-title">
<h2 id="password-title">Password</h2>
${
  v.hasPassword
    ? html`<p class="muted">Changing it logs out every other browser and ends the app’s and v1 clients’ logins.</p>
<form method="post" action="/dashboard/account/password" class="stack narrow" novalidate>${csrfField(ctx.csrf)}
${field({ label: 'Current password', name: 'current_password', type: 'password', autocomplete: 'current-password', error: v.errors?.current_password })}
${field({ label: 'New password', name: 'new_password', type: 'password', autocomplete: 'new-password', hint: 'At least 8 characters.', error: v.errors?.new_password })}
<button type="submit" class="primary">Change password</button>
</form>`
    : html`<p>This account was made with a social login and has no password yet. <a href="/dashboard/forgot">Set one with a code by e-mail</a>.</p>`
}
</section>
<section class="card danger-zone" aria-labelledby="delete-title">
<h2 id="delete-title">Delete account</h2>
<p>Deleting is final: your API keys and logins stop working at once, the webhook is removed, and your locks are released from the cloud.</p>
<form method="post" action="/dashboard/account/delete" class="stack narrow" novalidate>${csrfField(ctx.csrf)}
${
  v.hasPassword
    ? field({
        label: 'Your password, to confirm',
        name: 'password',
        type: 'password',
        autocomplete: 'current-password',
        error: v.errors?.delete_password,
      })
    : field({
        label: 'Type your e-mail address to confirm',
        name: 'confirm_email',
        type: 'email',
        error: v.errors?.confirm_email,
      })
}
<button type="submit" class="danger">Delete my account</button>
</form>
</section>`;
  return appLayout(ctx, 'account', 'Account', body);
}
