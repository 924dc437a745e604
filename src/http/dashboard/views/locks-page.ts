import type { AccessPoint } from '../../../domain/access-point.ts';
import { MAX_AUTO_LOCK_SECONDS } from '../../../domain/health.ts';
import type { Lock } from '../../../domain/lock.ts';
import type { GrantFormRefusal } from '../grant-form.ts';
import { type Html, html } from '../html.ts';
import type { GrantsOfPage } from '../routes/grants.ts';
import {
  grantFormRefused,
  guestGrantLine,
  guestsWords,
  invitationsSection,
  ownerGrants,
} from './grants-card.ts';
import { appLayout, csrfField, field, type Notice, notice, type PageContext } from './layout.ts';
import {
  accessPointLine,
  autoLockUnavailable,
  autoLockWords,
  batteryPill,
  healthLine,
  jammedPill,
} from './lock-health.ts';

/** The owner's health settings form's fields (POST /dashboard/locks/{id}/settings). */
export const SETTINGS_FIELDS = ['auto_lock_seconds', 'battery_low', 'battery_critical'] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

export interface LocksView {
  readonly owned: readonly Lock[];
  readonly shared: readonly Lock[];
  /** The sandbox lets the page play the mobile app; in production the app's state is only shown. */
  readonly canDriveApp: boolean;
  /** The server's clock (the sandbox's may run ahead of the browser's): "last seen 3 min ago". */
  readonly now: number;
  /** The access point each owned lock is paired with (or was last), by device id. */
  readonly accessPoints: ReadonlyMap<string, AccessPoint | null>;
  readonly notice?: Notice;
  /** The owner's grants by lock, the guest's invitations and accepted grants. */
  readonly grants: GrantsOfPage;
  /** A refused grant form's errors and values: by device id (an invitation) or grant id (an edit). */
  readonly grantForms?: Readonly<Record<string, GrantFormRefusal>>;
  /** The settings form as sent and its field errors, by device id, when it was refused. */
  readonly settingsRefused?: Readonly<
    Record<
      string,
      {
        readonly errors: Readonly<Partial<Record<SettingsField, string>>>;
        readonly values: Readonly<Partial<Record<SettingsField, string>>>;
      }
    >
  >;
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

/** The card's state at a glance; a jam first, since it is the one that needs someone at the door. */
export function statusPills(lock: Lock): Html {
  return html`<ul class="pills" aria-label="Status">
${jammedPill(lock)}
<li class="pill ${lock.locked ? 'pill-locked' : 'pill-unlocked'}" data-field="locked">${lock.locked ? 'Locked' : 'Unlocked'}</li>
${batteryPill(lock)}
<li class="pill ${lock.responsive ? 'pill-ok' : 'pill-warn'}" data-field="responsive">${lock.responsive ? 'Online' : 'Offline'}</li>
</ul>`;
}

/** Locks by nickname, as people look for them: case-insensitive, numbers in order, ties as stored. */
const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
export function sortedByName<T extends Pick<Lock, 'nickname'>>(locks: readonly T[]): T[] {
  // Array.prototype.sort is stable: locks of the same name keep the store's order.
  return [...locks].sort((a, b) => byName.compare(a.nickname, b.nickname));
}

export function commandForms(ctx: PageContext, lock: Lock, now: number): Html {
  const action = `/dashboard/locks/${lock.deviceId}/command`;
  // The command that would change the lock is the emphasised one (locks.js moves it with the state).
  const emphasis = (command: 'lock' | 'unlock') =>
    (command === 'unlock') === lock.locked ? 'primary' : 'secondary';
  const button = (command: string, label: string, cls: string) =>
    html`<form method="post" action="${action}" class="command-form">${csrfField(ctx.csrf)}<input type="hidden" name="command" value="${command}"><button type="submit" class="${cls}" data-command="${command}">${label}</button></form>`;
  return html`<div class="commands">
${button('unlock', 'Unlock', emphasis('unlock'))}${button('lock', 'Lock', emphasis('lock'))}${button('sync', 'Sync', 'secondary')}
<output class="task" data-field="task" aria-live="polite"></output>
${healthLine(lock, now)}
</div>`;
}

function settings(ctx: PageContext, lock: Lock, view: LocksView): Html {
  const base = `/dashboard/locks/${lock.deviceId}`;
  const refused = view.settingsRefused?.[lock.deviceId];
  const grants = view.grants.byLock.get(lock.deviceId) ?? [];
  const open = refused !== undefined || grantFormRefused(lock, grants, view.grantForms);
  // Rarely changed: folded away so several locks fit on a screen; open when its form has an error.
  return html`<details class="lock-more"${open ? html` open` : ''}>
<summary><span class="summary-title">Settings</span> <span class="muted">Integration ${lock.integration ? 'on' : 'off'} · <span data-field="summary-app">app ${lock.appOpen ? 'open' : 'closed'}</span> · <span data-field="summary-auto-lock">auto-lock ${autoLockWords(lock.autoLockSeconds)}</span> · ${guestsWords(grants)}</span></summary>
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
${healthSettings(ctx, lock, view.accessPoints.get(lock.deviceId) ?? null, refused)}
${ownerGrants(ctx, lock, grants, view.now, view.grantForms)}
</div>
</details>`;
}

/** One number of the settings form; its id carries the device id, as one form per lock is on the page. */
function numberField(
  lock: Lock,
  name: SettingsField,
  label: string,
  o: { value: string; min: number; max: number; hint: string; error?: string; disabled?: boolean },
): Html {
  const id = `${name}-${lock.deviceId}`;
  const describedBy = [`${id}-hint`, o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' field-invalid' : ''}">
<label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="number" inputmode="numeric" step="1" min="${o.min}" max="${o.max}" value="${o.value}" required aria-describedby="${describedBy}"${
    o.error ? html` aria-invalid="true"` : ''
  }${o.disabled ? html` disabled` : ''}>
<p class="hint" id="${id}-hint">${o.hint}</p>
${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ''}
</div>`;
}

/**
 * The owner's auto-lock and battery thresholds (POST /dashboard/locks/{id}/settings), and the access
 * point that carries auto-lock out. A lock whose access point cannot run auto-lock shows why, and its
 * field is not sent.
 */
function healthSettings(
  ctx: PageContext,
  lock: Lock,
  ap: AccessPoint | null,
  refused: NonNullable<LocksView['settingsRefused']>[string] | undefined,
): Html {
  const unavailable = autoLockUnavailable(lock, ap);
  const value = (name: SettingsField, stored: number) => refused?.values[name] ?? String(stored);
  return html`<div class="setting setting-health">
<div><h3>Auto-lock and battery</h3>${accessPointLine(ap)}</div>
<form method="post" action="/dashboard/locks/${lock.deviceId}/settings" class="health-form" novalidate>${csrfField(ctx.csrf)}
<div class="health-fields">
${numberField(lock, 'auto_lock_seconds', 'Auto-lock after (seconds)', {
  value: value('auto_lock_seconds', lock.autoLockSeconds),
  min: 0,
  max: MAX_AUTO_LOCK_SECONDS,
  hint:
    unavailable === null
      ? `0 is off; up to ${MAX_AUTO_LOCK_SECONDS}. The lock does it itself, also offline.`
      : `Unavailable: ${unavailable}`,
  error: refused?.errors.auto_lock_seconds,
  disabled: unavailable !== null,
})}
${numberField(lock, 'battery_low', 'Battery low under (%)', {
  value: value('battery_low', lock.batteryLow),
  min: 2,
  max: 100,
  hint: 'From 2 to 100; 20 by default.',
  error: refused?.errors.battery_low,
})}
${numberField(lock, 'battery_critical', 'Battery critical under (%)', {
  value: value('battery_critical', lock.batteryCritical),
  min: 1,
  max: 99,
  hint: 'From 1 to 99, under the low one; 10 by default.',
  error: refused?.errors.battery_critical,
})}
</div>
<div><button type="submit" class="secondary" data-action="settings">Save</button></div>
</form>
</div>`;
}

/** The lock's events in words (routes/activity.ts); in the header's line, so a card grows no taller. */
const activityLink = (lock: Lock): Html =>
  html`<a href="/dashboard/locks/${lock.deviceId}/activity">Activity</a>`;

function lockCard(ctx: PageContext, lock: Lock, view: LocksView): Html {
  return html`<section class="card lock" data-device-id="${lock.deviceId}" aria-labelledby="lock-${lock.deviceId}">
<header class="lock-head">
<div><h2 id="lock-${lock.deviceId}">${lock.nickname}</h2><p class="muted mono">${lock.serial} · ${lock.deviceId} · ${activityLink(lock)}</p></div>
${statusPills(lock)}
</header>
${commandForms(ctx, lock, view.now)}
${settings(ctx, lock, view)}
</section>`;
}

/**
 * A lock another account shares with this one, through its accepted grant: an operate grant has the
 * command buttons (refused outside its window or schedule, saying why); a view grant none.
 */
function guestCard(ctx: PageContext, lock: Lock, view: LocksView): Html {
  const grant = view.grants.mine.get(lock.deviceId);
  const operate = grant?.role === 'operate';
  return html`<section class="card lock lock-shared" data-device-id="${lock.deviceId}" aria-labelledby="lock-${lock.deviceId}"><header class="lock-head"><div><h2 id="lock-${lock.deviceId}">${lock.nickname}</h2><p class="muted">${
    operate ? 'Shared with you to operate.' : 'Shared with you to view: only its owner controls it.'
  } ${activityLink(lock)}</p></div>${statusPills(lock)}</header>
${operate ? commandForms(ctx, lock, view.now) : healthLine(lock, view.now)}
${guestGrantLine(ctx, lock, grant, view.now)}
</section>`;
}

export function locksPage(ctx: PageContext, view: LocksView): Html {
  const body = html`${notice(view.notice)}
${invitationsSection(ctx, view.grants.invitations)}
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
${sortedByName(view.shared).map((lock) => guestCard(ctx, lock, view))}`
}`;
  return appLayout(ctx, 'locks', 'Locks', body, ['locks.js']);
}
