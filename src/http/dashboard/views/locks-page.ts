import type { LockWithShares } from '../../../app/lock-settings.ts';
import type { Lock } from '../../../domain/lock.ts';
import { type Html, html } from '../html.ts';
import { appLayout, csrfField, field, type Notice, notice, type PageContext } from './layout.ts';

export interface LocksView {
  readonly owned: readonly LockWithShares[];
  readonly shared: readonly Lock[];
  /** The sandbox lets the page play the mobile app; in production the app's state is only shown. */
  readonly canDriveApp: boolean;
  readonly lowBatteryThreshold: number;
  readonly notice?: Notice;
  /** Field errors of the share form, by device id. */
  readonly shareErrors?: Readonly<Record<string, string>>;
  /** The sandbox offers a simulated lock to add (POST /dashboard/locks/simulated). */
  readonly canAddSimulated: boolean;
  /** The add form as sent, and its field error, when it was refused. */
  readonly added?: { readonly nickname?: string; readonly error?: string };
}

/** Sandbox only: a lock the server's simulator runs, for an account that has none to try. */
function addSimulatedForm(ctx: PageContext, view: LocksView): Html {
  return html`<section class="card add-lock" aria-labelledby="add-lock-title">
<h2 id="add-lock-title">Add a simulated lock</h2>
<p class="muted">Sandbox only: a lock run by this server's simulator, paired with a simulated access point of your account.</p>
<form method="post" action="/dashboard/locks/simulated" class="stack narrow" novalidate>${csrfField(ctx.csrf)}
${field({ label: 'Nickname (optional)', name: 'nickname', required: false, value: view.added?.nickname, hint: 'Up to 128 characters; without one it is named after its serial.', error: view.added?.error })}
<div><button type="submit" class="primary" data-action="add-simulated-lock">Add the lock</button></div>
</form>
</section>`;
}

export function statusPills(lock: Lock, lowBatteryThreshold: number): Html {
  const low = lock.battery < lowBatteryThreshold;
  return html`<ul class="pills" aria-label="Status">
<li class="pill ${lock.locked ? 'pill-locked' : 'pill-unlocked'}" data-field="locked">${lock.locked ? 'Locked' : 'Unlocked'}</li>
<li class="pill ${low ? 'pill-warn' : ''}" data-field="battery">Battery ${lock.battery}%</li>
<li class="pill ${lock.responsive ? 'pill-ok' : 'pill-warn'}" data-field="responsive">${lock.responsive ? 'Online' : 'Offline'}</li>
</ul>`;
}

/** Locks by nickname, as people look for them: case-insensitive, numbers in order, ties as stored. */
const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
export function sortedByName<T extends Pick<Lock, 'nickname'>>(locks: readonly T[]): T[] {
  // Array.prototype.sort is stable: locks of the same name keep the store's order.
  return [...locks].sort((a, b) => byName.compare(a.nickname, b.nickname));
}

function commandForms(ctx: PageContext, lock: Lock): Html {
  const action = `/dashboard/locks/${lock.deviceId}/command`;
  // The command that would change the lock is the emphasised one (locks.js moves it with the state).
  const emphasis = (command: 'lock' | 'unlock') =>
    (command === 'unlock') === lock.locked ? 'primary' : 'secondary';
  const button = (command: string, label: string, cls: string) =>
    html`<form method="post" action="${action}" class="command-form">${csrfField(ctx.csrf)}<input type="hidden" name="command" value="${command}"><button type="submit" class="${cls}" data-command="${command}">${label}</button></form>`;
  return html`<div class="commands">
${button('unlock', 'Unlock', emphasis('unlock'))}${button('lock', 'Lock', emphasis('lock'))}${button('sync', 'Sync', 'secondary')}
<output class="task" data-field="task" aria-live="polite"></output>
</div>`;
}

function settings(ctx: PageContext, lock: LockWithShares, view: LocksView): Html {
  const base = `/dashboard/locks/${lock.deviceId}`;
  const shareError = view.shareErrors?.[lock.deviceId];
  const shareInputId = `share-${lock.deviceId}`;
  const shares = lock.sharedWith.length;
  // Rarely changed: folded away so several locks fit on a screen; open when its form has an error.
  return html`<details class="lock-more"${shareError ? html` open` : ''}>
<summary><span class="summary-title">Settings</span> <span class="muted">Integration ${lock.integration ? 'on' : 'off'} · <span data-field="summary-app">app ${lock.appOpen ? 'open' : 'closed'}</span> · ${
    shares === 0 ? 'not shared' : `shared with ${shares}`
  }</span></summary>
<div class="lock-settings">
<div class="setting">
<div><h3>Cloud integration</h3><p class="muted" data-field="integration">${lock.integration ? 'On' : 'Off'}${lock.accessPoint ? '' : ' · not paired with an access point'}</p></div>
<form method="post" action="${base}/integration">${csrfField(ctx.csrf)}<input type="hidden" name="enabled" value="${lock.integration ? 'off' : 'on'}"><button type="submit" class="secondary" data-action="integration">${lock.integration ? 'Turn off' : 'Turn on'}</button></form>
</div>
<div class="setting">
<div><h3>Mobile app</h3><p class="muted" data-field="app">${lock.appOpen ? 'Open: it holds the lock’s only connection' : 'Closed'}</p></div>
${
  view.canDriveApp
    ? html`<form method="post" action="${base}/app">${csrfField(ctx.csrf)}<input type="hidden" name="open" value="${lock.appOpen ? 'no' : 'yes'}"><button type="submit" class="secondary" data-action="app">${lock.appOpen ? 'Close the app' : 'Open the app'}</button></form>`
    : html`<p class="muted">Shown as the app reports it.</p>`
}
</div>
<div class="setting setting-share">
<div><h3>Shared with</h3>
${
  lock.sharedWith.length === 0
    ? html`<p class="muted">Nobody.</p>`
    : html`<ul class="shares">${lock.sharedWith.map(
        (s) =>
          html`<li><span>${s.email}</span><form method="post" action="${base}/unshare">${csrfField(ctx.csrf)}<input type="hidden" name="account" value="${s.accountId}"><button type="submit" class="link-button" aria-label="Stop sharing with ${s.email}">Remove</button></form></li>`,
      )}</ul>`
}
</div>
<form method="post" action="${base}/share" class="share-form">${csrfField(ctx.csrf)}
<label for="${shareInputId}">Share with (e-mail)</label>
<div class="row"><input id="${shareInputId}" name="email" type="email" autocomplete="off" required${shareError ? html` aria-invalid="true" aria-describedby="${shareInputId}-error"` : ''}><button type="submit" class="secondary">Share</button></div>
${shareError ? html`<p class="field-error" id="${shareInputId}-error">${shareError}</p>` : ''}
</form>
</div>
</div>
</details>`;
}

/** The lock's events in words (routes/activity.ts); in the header's line, so a card grows no taller. */
const activityLink = (lock: Lock): Html =>
  html`<a href="/dashboard/locks/${lock.deviceId}/activity">Activity</a>`;

function lockCard(ctx: PageContext, lock: LockWithShares, view: LocksView): Html {
  return html`<section class="card lock" data-device-id="${lock.deviceId}" aria-labelledby="lock-${lock.deviceId}">
<header class="lock-head">
<div><h2 id="lock-${lock.deviceId}">${lock.nickname}</h2><p class="muted mono">${lock.serial} · ${lock.deviceId} · ${activityLink(lock)}</p></div>
${statusPills(lock, view.lowBatteryThreshold)}
</header>
${commandForms(ctx, lock)}
${settings(ctx, lock, view)}
</section>`;
}

export function locksPage(ctx: PageContext, view: LocksView): Html {
  const body = html`${notice(view.notice)}
${
  view.owned.length === 0
    ? html`<div class="card empty"><p>No locks yet. Locks appear here once they are paired with this account${view.canAddSimulated ? html`; in the sandbox, add a simulated one below` : ''}.</p></div>`
    : ''
}
${sortedByName(view.owned).map((lock) => lockCard(ctx, lock, view))}
${view.canAddSimulated ? addSimulatedForm(ctx, view) : ''}
${
  view.shared.length === 0
    ? ''
    : html`<h2 class="section-title">Shared with you</h2>
${sortedByName(view.shared).map(
  (lock) =>
    html`<section class="card lock lock-shared" data-device-id="${lock.deviceId}"><header class="lock-head"><div><h2>${lock.nickname}</h2><p class="muted">Only its owner can control it through the cloud. ${activityLink(lock)}</p></div>${statusPills(lock, view.lowBatteryThreshold)}</header></section>`,
)}`
}`;
  return appLayout(ctx, 'locks', 'Locks', body, ['locks.js']);
}
