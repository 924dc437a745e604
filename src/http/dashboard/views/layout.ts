import { type Html, html, type Renderable } from '../html.ts';

export type Section = 'locks' | 'apps' | 'api-settings' | 'account';

export interface PageContext {
  readonly csrf: string;
  /** The signed-in address; undefined on the pages shown before login. */
  readonly email?: string;
}

export interface Notice {
  readonly kind: 'error' | 'success' | 'info';
  readonly text: string;
}

function head(title: string): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · lockcloud</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
</head>`;
}

export function notice(n: Notice | undefined): Html {
  if (!n) return html``;
  // Errors interrupt (role=alert); confirmations are announced politely.
  const role = n.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${n.kind}" role="${role}" data-testid="notice">${n.text}</div>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export interface FieldOptions {
  readonly label: string;
  readonly name: string;
  readonly type?: string;
  readonly value?: string;
  readonly autocomplete?: string;
  readonly hint?: string;
  readonly error?: string;
  readonly required?: boolean;
  readonly autofocus?: boolean;
  readonly inputmode?: string;
  readonly pattern?: string;
}

/** A labelled input; a field error is tied to it with aria-describedby and aria-invalid. */
export function field(o: FieldOptions): Html {
  const id = `f-${o.name}`;
  const describedBy = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' field-invalid' : ''}">
<label for="${id}">${o.label}</label>
<input id="${id}" name="${o.name}" type="${o.type ?? 'text'}"${o.value === undefined ? '' : html` value="${o.value}"`}${
    o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''
  }${o.required === false ? '' : html` required`}${o.autofocus ? html` autofocus` : ''}${
    o.inputmode ? html` inputmode="${o.inputmode}"` : ''
  }${o.pattern ? html` pattern="${o.pattern}"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
    o.error ? html` aria-invalid="true"` : ''
  }>
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ''}
</div>`;
}

/** The pages before login: one centred card. */
export function authLayout(title: string, body: Renderable): Html {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body class="auth">
<main class="auth-card" id="main">
<div class="brand brand-auth"><span class="brand-mark" aria-hidden="true"></span>lockcloud</div>
${body}
</main>
</body>
</html>`;
}

const NAV: readonly { section: Section; href: string; label: string }[] = [
  { section: 'locks', href: '/dashboard/locks', label: 'Locks' },
  { section: 'apps', href: '/dashboard/apps', label: 'Apps' },
  { section: 'api-settings', href: '/dashboard/api-settings', label: 'API Settings' },
  { section: 'account', href: '/dashboard/account', label: 'Account' },
];

/** The signed-in pages: a sidebar with the sections, the address and log out. */
export function appLayout(
  ctx: PageContext,
  section: Section,
  title: string,
  body: Renderable,
  scripts: readonly string[] = [],
): Html {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body class="app">
<a class="skip-link" href="#main">Skip to content</a>
<nav class="sidebar" aria-label="Dashboard">
<div class="brand"><span class="brand-mark" aria-hidden="true"></span>lockcloud</div>
<ul class="nav">
${NAV.map(
  (item) =>
    html`<li><a href="${item.href}"${item.section === section ? html` class="active" aria-current="page"` : ''}>${item.label}</a></li>`,
)}
</ul>
<div class="sidebar-foot">
<p class="who" title="${ctx.email ?? ''}">${ctx.email ?? ''}</p>
<form method="post" action="/dashboard/logout">${csrfField(ctx.csrf)}<button type="submit" class="link-button">Log out</button></form>
</div>
</nav>
<main id="main" class="content" data-csrf="${ctx.csrf}">
<h1>${title}</h1>
${body}
</main>
${scripts.map((s) => html`<script src="/dashboard/assets/${s}" defer></script>`)}
</body>
</html>`;
}
