import { type Html, html } from '../html.ts';
import { authLayout, csrfField, field, type Notice, notice } from './layout.ts';

export interface FormState {
  readonly csrf: string;
  readonly notice?: Notice;
  /** Field name -> message, for errors that belong to one field. */
  readonly errors?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, string>>;
  /** Sandbox mode: mail stays on the server, read at /_sim/mailbox (the pages that wait for one say so). */
  readonly sandboxMail?: boolean;
}

const err = (s: FormState, name: string) => s.errors?.[name];
const val = (s: FormState, name: string) => s.values?.[name];

/** Where the sandbox's mail is read: linked for the address the form knows, else the pattern. */
function sandboxMail(s: FormState): Html {
  if (!s.sandboxMail) return html``;
  const email = val(s, 'email')?.trim() ?? '';
  const where =
    email === ''
      ? html`<code>/_sim/mailbox?to=&lt;address&gt;</code>`
      : html`<a href="/_sim/mailbox?to=${encodeURIComponent(email)}">/_sim/mailbox?to=${email}</a>`;
  return html`<p class="sandbox-mail" data-testid="sandbox-mail">Sandbox mode: no mail leaves this server. Read it at ${where}.</p>`;
}

/** Login refused an unverified address: the way to the code, and a new one. */
function unverifiedHelp(s: FormState): Html {
  const email = val(s, 'email')?.trim() ?? '';
  return html`<div class="next-step" data-testid="unverified">
<p><a href="/dashboard/verify?email=${encodeURIComponent(email)}">Enter the code from the mail</a>, or get a new one:</p>
<form method="post" action="/dashboard/verify/resend">${csrfField(s.csrf)}<input type="hidden" name="email" value="${email}"><button type="submit" class="secondary">Send a new code</button></form>
</div>`;
}

export function loginPage(s: FormState & { next?: string; unverified?: boolean }): Html {
  return authLayout(
    'Log in',
    html`<h1>Log in</h1>
${notice(s.notice)}
${s.unverified ? unverifiedHelp(s) : ''}
<form method="post" action="/dashboard/login" class="stack" novalidate>
${csrfField(s.csrf)}
${s.next ? html`<input type="hidden" name="next" value="${s.next}">` : ''}
${field({ label: 'E-mail', name: 'email', type: 'email', autocomplete: 'username', value: val(s, 'email'), error: err(s, 'email'), autofocus: true })}
${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', error: err(s, 'password') })}
<button type="submit" class="primary">Log in</button>
</form>
<p class="alt"><a href="/dashboard/forgot">Forgot password or no password yet?</a></p>
<p class="alt">New to lockcloud? <a href="/dashboard/signup">Create an account</a></p>
${sandboxMail(s)}`,
  );
}

export function signUpPage(s: FormState): Html {
  return authLayout(
    'Create an account',
    html`<h1>Create an account</h1>
${notice(s.notice)}
<form method="post" action="/dashboard/signup" class="stack" novalidate>
${csrfField(s.csrf)}
${field({ label: 'E-mail', name: 'email', type: 'email', autocomplete: 'email', value: val(s, 'email'), error: err(s, 'email'), autofocus: true })}
${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'new-password', hint: 'At least 8 characters.', error: err(s, 'password') })}
<button type="submit" class="primary">Create account</button>
</form>
<p class="alt">Already have an account? <a href="/dashboard/login">Log in</a></p>`,
  );
}

export function verifyPage(s: FormState): Html {
  return authLayout(
    'Verify your e-mail',
    html`<h1>Verify your e-mail</h1>
${notice(s.notice)}
<p>We sent a 6-digit code to your address. It is valid for 10 minutes.</p>
<form method="post" action="/dashboard/verify" class="stack" novalidate>
${csrfField(s.csrf)}
${field({ label: 'E-mail', name: 'email', type: 'email', autocomplete: 'email', value: val(s, 'email'), error: err(s, 'email') })}
${field({ label: 'Code', name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', error: err(s, 'code'), autofocus: true })}
<button type="submit" class="primary">Verify</button>
</form>
<form method="post" action="/dashboard/verify/resend" class="alt">
${csrfField(s.csrf)}
<input type="hidden" name="email" value="${val(s, 'email') ?? ''}">
No code, or too late? <button type="submit" class="link-button">Send a new code</button>
</form>
${sandboxMail(s)}`,
  );
}

export function forgotPage(s: FormState): Html {
  return authLayout(
    'Set a new password',
    html`<h1>Set a new password</h1>
${notice(s.notice)}
<p>Forgot your password, or signed up with a social login and never set one? We will mail you a code.</p>
<form method="post" action="/dashboard/forgot" class="stack" novalidate>
${csrfField(s.csrf)}
${field({ label: 'E-mail', name: 'email', type: 'email', autocomplete: 'email', value: val(s, 'email'), error: err(s, 'email'), autofocus: true })}
<button type="submit" class="primary">Mail me a code</button>
</form>
<p class="alt"><a href="/dashboard/login">Back to log in</a></p>
${sandboxMail(s)}`,
  );
}

export function resetPage(s: FormState): Html {
  return authLayout(
    'Set a new password',
    html`<h1>Set a new password</h1>
${notice(s.notice)}
<form method="post" action="/dashboard/reset" class="stack" novalidate>
${csrfField(s.csrf)}
${field({ label: 'E-mail', name: 'email', type: 'email', autocomplete: 'email', value: val(s, 'email'), error: err(s, 'email') })}
${field({ label: 'Code from the mail', name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', error: err(s, 'code'), autofocus: true })}
${field({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', hint: 'At least 8 characters.', error: err(s, 'password') })}
<button type="submit" class="primary">Set password</button>
</form>
<p class="alt"><a href="/dashboard/login">Back to log in</a></p>
${sandboxMail(s)}`,
  );
}

/** A refused request outside any form (a stale CSRF token, too many attempts), in the auth card. */
export function problemPage(title: string, text: string, back: string): Html {
  return authLayout(
    title,
    html`<h1>${title}</h1>
${notice({ kind: 'error', text })}
<p class="alt"><a href="${back}">Go back</a></p>`,
  );
}
