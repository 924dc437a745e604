/**
 * Grants on the locks page (issue 23, docs/locks.md "Grants"): the owner's guests of a lock with
 * each grant's state, its edit and revoke, and the invitation form; the guest's pending
 * invitations, and the card of a lock the guest accepted. Times are on the lock's wall clock.
 */
import {
  type GrantDenial,
  type GrantTerms,
  type GuestGrant,
  grantAllows,
  type OwnerGrant,
} from '../../../domain/grant.ts';
import type { Lock } from '../../../domain/lock.ts';
import {
  MAX_SCHEDULE_ENTRIES,
  WEEKDAYS,
  type Weekday,
  type WeeklySchedule,
} from '../../../domain/schedule.ts';
import {
  type GrantField,
  type GrantFormRefusal,
  rowSuffix,
  scheduleRowsOf,
  wallClockOf,
} from '../grant-form.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type PageContext } from './layout.ts';

const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

const STATE_WORDS: Record<OwnerGrant['state'], string> = {
  pending: 'Pending',
  accepted: 'Accepted',
  declined: 'Declined',
  revoked: 'Revoked',
  used: 'Used',
};

const NOW_WORDS: Record<GrantDenial, string> = {
  not_accepted: 'not accepted',
  revoked: 'revoked',
  used: 'used up',
  expired: 'its window has ended',
  view_only: 'view only',
  not_yet: 'its window has not started yet',
  outside_schedule: 'outside its schedule now',
};

const shown = (ms: number, tz: string) => wallClockOf(ms, tz).replace('T', ' ');

export function scheduleWords(schedule: WeeklySchedule | null): string {
  if (schedule === null) return 'at any time';
  return schedule.map((e) => `${e.days.map((d) => DAY_NAMES[d]).join(', ')} ${e.start}–${e.end}`).join('; ');
}

/**
 * The terms in one line: role, window, schedule, one-time; times on the lock's wall clock, the
 * zone named (an invitation carries its lock's zone too: the guest reads the terms before the lock).
 */
export function termsWords(g: GrantTerms, timeZone: string): string {
  const at = (ms: number) => shown(ms, timeZone);
  const window =
    g.startsAt === null && g.endsAt === null
      ? 'no time limit'
      : `${g.startsAt === null ? 'from now' : `from ${at(g.startsAt)}`}${g.endsAt === null ? '' : ` until ${at(g.endsAt)}`}`;
  return `${g.role === 'operate' ? 'Operate' : 'View'} · ${window} · ${scheduleWords(g.schedule)}${g.oneTime ? ' · one-time' : ''} (${timeZone})`;
}

/** Whether an accepted grant gives its guest anything at `now`, and why not. */
export function nowWords(g: OwnerGrant | GuestGrant, now: number, timeZone: string): string {
  if (g.state !== 'accepted') return g.state === 'pending' ? 'waiting for an answer' : '';
  const action = g.role === 'operate' ? 'operate' : 'read';
  const d = grantAllows(g, action, now, timeZone);
  if (d.ok) return g.role === 'operate' ? 'can operate now' : 'can view now';
  return NOW_WORDS[d.reason];
}

/** One input with its label, hint and error; ids carry the form's own prefix. */
function input(
  id: string,
  name: string,
  label: string | Html,
  o: { type: string; value?: string; hint?: string; error?: string; required?: boolean },
): Html {
  const describedBy = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' field-invalid' : ''}">
<label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${o.type}"${o.value === undefined ? '' : html` value="${o.value}"`}${
    o.required ? html` required` : ''
  }${describedBy ? html` aria-describedby="${describedBy}"` : ''}${o.error ? html` aria-invalid="true"` : ''}>
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ''}
</div>`;
}

const errorLine = (id: string, error: string | undefined) =>
  error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';

/**
 * The terms' inputs, shared by the invitation and the edit: filled from the grant, or from what the
 * refused form sent. The schedule: a row per entry and one empty row to add another (up to the
 * API's 28); the rows after the first say which they are to a screen reader.
 */
function termsFields(
  id: string,
  timeZone: string,
  terms: GrantTerms | undefined,
  refused: GrantFormRefusal | undefined,
): Html {
  const sent = refused?.values._sent === '1' ? refused.values : undefined;
  const err = (f: GrantField) => refused?.errors[f];
  const role = sent ? sent.role : (terms?.role ?? 'view');
  const at = (name: 'starts_at' | 'ends_at', ms: number | null | undefined) =>
    sent ? (sent[name] ?? '') : ms === null || ms === undefined ? '' : wallClockOf(ms, timeZone);
  const entries = terms?.schedule ?? [];
  const rows = sent ? scheduleRowsOf(sent) : Math.min(entries.length + 1, MAX_SCHEDULE_ENTRIES);
  const scheduleRow = (row: number): Html => {
    const sfx = rowSuffix(row);
    const entry = entries[row];
    const which = row === 0 ? '' : html`<span class="visually-hidden">, time ${row + 1}</span>`;
    const day = (d: Weekday) =>
      sent ? sent[`day_${d}${sfx}`] !== undefined : (entry?.days.includes(d) ?? false);
    const time = (name: 'schedule_start' | 'schedule_end', now: string | undefined) =>
      sent ? sent[`${name}${sfx}`] : now;
    return html`<div class="schedule-row">
<div class="days">${WEEKDAYS.map(
      (d) =>
        html`<label class="inline"><input type="checkbox" name="day_${d}${sfx}" value="on"${day(d) ? html` checked` : ''}> ${DAY_NAMES[d]}${which}</label>`,
    )}</div>
<div class="row">${input(`${id}-from${sfx}`, `schedule_start${sfx}`, html`From${which}`, { type: 'time', value: time('schedule_start', entry?.start) })}${input(
      `${id}-to${sfx}`,
      `schedule_end${sfx}`,
      html`To${which}`,
      { type: 'time', value: time('schedule_end', entry?.end) },
    )}</div>
</div>`;
  };
  const oneTime = sent ? sent.one_time !== undefined : (terms?.oneTime ?? false);
  const radio = (value: 'view' | 'operate', label: string) =>
    html`<label class="inline"><input type="radio" name="role" value="${value}"${role === value ? html` checked` : ''}> ${label}</label>`;
  const schedule = html`<fieldset class="grant-schedule"${err('schedule') ? html` aria-describedby="${id}-schedule-error"` : ''}>
<legend>Weekly schedule (optional, ${timeZone})</legend>
<input type="hidden" name="schedule_form" value="1">
<input type="hidden" name="schedule_rows" value="${String(rows)}">
${Array.from({ length: rows }, (_, row) => scheduleRow(row))}
${rows < MAX_SCHEDULE_ENTRIES ? html`<p class="hint">Another time on other days or hours: fill in the empty row and save; a new one appears. Empty a row to remove it.</p>` : ''}
${errorLine(`${id}-schedule`, err('schedule'))}
</fieldset>`;
  return html`<fieldset class="grant-role"${err('role') ? html` aria-describedby="${id}-role-error"` : ''}><legend>Role</legend>
${radio('view', 'View: sees its state')} ${radio('operate', 'Operate: also locks and unlocks it')}
${errorLine(`${id}-role`, err('role'))}
</fieldset>
<div class="row">
${input(`${id}-starts`, 'starts_at', 'Starts (optional)', { type: 'datetime-local', value: at('starts_at', terms?.startsAt), hint: `Lock time (${timeZone}); empty: at once.`, error: err('starts_at') })}
${input(`${id}-ends`, 'ends_at', 'Ends (optional)', { type: 'datetime-local', value: at('ends_at', terms?.endsAt), hint: `Lock time (${timeZone}); empty: until revoked.`, error: err('ends_at') })}
</div>
${schedule}
<div class="field${err('one_time') ? ' field-invalid' : ''}"><label class="inline"><input id="${id}-one-time" type="checkbox" name="one_time" value="on"${oneTime ? html` checked` : ''}${
    err('one_time') ? html` aria-invalid="true" aria-describedby="${id}-one_time-error"` : ''
  }> One-time: it ends with the first unlock</label>
${errorLine(`${id}-one_time`, err('one_time'))}</div>`;
}

function ownerGrantRow(
  ctx: PageContext,
  lock: Lock,
  g: OwnerGrant,
  now: number,
  refused: GrantFormRefusal | undefined,
): Html {
  const base = `/dashboard/locks/${lock.deviceId}/grants/${g.id}`;
  const live = g.state === 'pending' || g.state === 'accepted';
  const state = nowWords(g, now, lock.timeZone);
  return html`<li class="grant grant-${g.state}" data-grant-id="${g.id}">
<div class="grant-line"><span class="grant-email">${g.guestEmail}</span> <span class="pill grant-state" data-field="grant-state">${STATE_WORDS[g.state]}</span>${
    state ? html` <span class="muted" data-field="grant-now">${state}</span>` : ''
  }</div>
<p class="muted grant-terms">${termsWords(g, lock.timeZone)}</p>
${
  live
    ? html`<details class="grant-edit"${refused ? html` open` : ''}><summary>Edit<span class="visually-hidden"> the grant of ${g.guestEmail}</span></summary>
<form method="post" action="${base}" class="stack grant-form" novalidate>${csrfField(ctx.csrf)}
${termsFields(`g-${g.id}`, lock.timeZone, g, refused)}
<div><button type="submit" class="secondary" aria-label="Save the grant of ${g.guestEmail}">Save</button></div>
</form>
</details>
<form method="post" action="${base}/revoke" class="grant-revoke">${csrfField(ctx.csrf)}<button type="submit" class="link-button" aria-label="Revoke the grant of ${g.guestEmail}">${g.state === 'pending' ? 'Withdraw' : 'Revoke'}</button></form>`
    : ''
}
</li>`;
}

/** Whether a grant form of the lock was refused: its fold opens to show the errors. */
export function grantFormRefused(
  lock: Lock,
  grants: readonly OwnerGrant[],
  forms: Readonly<Record<string, GrantFormRefusal>> | undefined,
): boolean {
  return forms !== undefined && (lock.deviceId in forms || grants.some((g) => g.id in forms));
}

/** The fold's summary: how many guests have or are offered access. */
export function guestsWords(grants: readonly OwnerGrant[]): string {
  const live = grants.filter((g) => g.state === 'pending' || g.state === 'accepted').length;
  return live === 0 ? 'no guests' : live === 1 ? '1 guest' : `${live} guests`;
}

/** The owner's guests of one lock: every grant in every state, and the invitation form. */
export function ownerGrants(
  ctx: PageContext,
  lock: Lock,
  grants: readonly OwnerGrant[],
  now: number,
  forms: Readonly<Record<string, GrantFormRefusal>> | undefined,
): Html {
  const invite = forms?.[lock.deviceId];
  const id = `inv-${lock.deviceId}`;
  return html`<div class="setting setting-grants">
<div><h3>Guests</h3>
${
  grants.length === 0
    ? html`<p class="muted">Nobody is invited.</p>`
    : html`<ul class="grant-list" aria-label="Grants of ${lock.nickname}">${grants.map((g) =>
        ownerGrantRow(ctx, lock, g, now, forms?.[g.id]),
      )}</ul>`
}
</div>
<form method="post" action="/dashboard/locks/${lock.deviceId}/grants" class="stack grant-form invite-form" novalidate>${csrfField(ctx.csrf)}
<h4>Invite a guest</h4>
${input(`${id}-email`, 'email', 'Invite (e-mail of a lockcloud account)', { type: 'email', value: invite?.values.email, error: invite?.errors.email, required: true })}
${termsFields(id, lock.timeZone, undefined, invite)}
<div><button type="submit" class="secondary" aria-label="Invite to ${lock.nickname}">Invite</button></div>
</form>
</div>`;
}

/** The guest's pending invitations, each with accept and decline. */
export function invitationsSection(ctx: PageContext, invitations: readonly GuestGrant[]): Html {
  if (invitations.length === 0) return html``;
  return html`<section class="card invitations" aria-labelledby="invitations-title">
<h2 id="invitations-title">Pending invitations</h2>
<ul class="invitation-list">${invitations.map(
    (g) => html`<li class="invitation" data-grant-id="${g.id}">
<div><strong>${g.lockNickname}</strong> <span class="muted">from ${g.ownerEmail}</span>
<p class="muted">${termsWords(g, g.lockTimeZone)}</p></div>
<div class="row">
<form method="post" action="/dashboard/invitations/${g.id}/accept">${csrfField(ctx.csrf)}<button type="submit" class="primary" aria-label="Accept the invitation to ${g.lockNickname}">Accept</button></form>
<form method="post" action="/dashboard/invitations/${g.id}/decline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Decline the invitation to ${g.lockNickname}">Decline</button></form>
</div>
</li>`,
  )}</ul>
</section>`;
}

/** What a guest's card says of its grant, and the way to give it back. */
export function guestGrantLine(ctx: PageContext, lock: Lock, g: GuestGrant | undefined, now: number): Html {
  if (g === undefined) return html``;
  return html`<div class="guest-grant"><p class="muted">Shared by ${g.ownerEmail}: ${termsWords(g, lock.timeZone)} · <span data-field="grant-now">${nowWords(g, now, lock.timeZone)}</span></p>
<form method="post" action="/dashboard/invitations/${g.id}/decline">${csrfField(ctx.csrf)}<button type="submit" class="link-button" aria-label="Give back the access to ${lock.nickname}">Give back</button></form></div>`;
}
