/**
 * The activity pages (docs/events.md, "Where to see it"): a lock's events and the account's log,
 * newest first, each said in words (domain/event-words.ts), paged by the log's cursor ("Older").
 */
import type { LockEvent } from '../../../domain/event.ts';
import { actorWords, eventWords } from '../../../domain/event-words.ts';
import { type Html, html } from '../html.ts';
import { appLayout, type PageContext } from './layout.ts';

export interface ActivityView {
  readonly events: readonly LockEvent[];
  /** The "Older" link's cursor; null on the last page. */
  readonly nextCursor: string | null;
}

/** The type filters the account page offers: every type's start (docs/events.md, "Types"). */
export const TYPE_FILTERS: readonly (readonly [string, string])[] = [
  ['', 'Everything'],
  ['lock.', 'Lock movements, reach, battery, jams and the door'],
  ['command.', 'Commands'],
  ['access_point.', 'Access points'],
  ['share.', 'Shares'],
  ['api_key.', 'API keys'],
  ['webhook.', 'Webhook'],
  ['account.', 'Password and logins'],
];

/** To the second: a log's neighbours are often within one minute. */
const at = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

function table(view: ActivityView, lockNames: ReadonlyMap<string, string> | undefined): Html {
  if (view.events.length === 0) return html`<p class="muted">Nothing yet.</p>`;
  return html`<div class="table-wrap"><table class="table activity" data-testid="activity">
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th>${lockNames ? html`<th scope="col">Lock</th>` : ''}</tr></thead>
<tbody>${view.events.map(
    (e) =>
      html`<tr data-event-id="${e.id}" data-type="${e.type}"><td class="mono"><time datetime="${new Date(e.occurredAt).toISOString()}">${at(e.occurredAt)}</time></td><td class="event-words">${eventWords(e)}</td><td>${actorWords(e.actor)}</td>${
        lockNames
          ? html`<td>${e.deviceId === null ? '' : html`<a href="/dashboard/locks/${e.deviceId}/activity">${lockNames.get(e.deviceId) ?? e.deviceId}</a>`}</td>`
          : ''
      }</tr>`,
  )}</tbody>
</table></div>`;
}

function older(base: string, params: Record<string, string>, cursor: string | null): Html {
  if (cursor === null) return html``;
  const query = new URLSearchParams({ ...params, cursor }).toString();
  return html`<p><a rel="next" href="${base}?${query}">Older</a></p>`;
}

export function lockActivityPage(
  ctx: PageContext,
  lock: { readonly deviceId: string; readonly nickname: string },
  view: ActivityView,
): Html {
  const base = `/dashboard/locks/${lock.deviceId}/activity`;
  const body = html`<p><a href="/dashboard/locks">← Locks</a></p>
<section class="card" aria-labelledby="activity-title" data-device-id="${lock.deviceId}">
<h2 id="activity-title">${lock.nickname}</h2>
<p class="muted mono">${lock.deviceId}</p>
${table(view, undefined)}
${older(base, {}, view.nextCursor)}
</section>`;
  return appLayout(ctx, 'locks', `Activity of ${lock.nickname}`, body);
}

export function accountActivityPage(
  ctx: PageContext,
  view: ActivityView & { readonly type: string; readonly lockNames: ReadonlyMap<string, string> },
): Html {
  const base = '/dashboard/account/activity';
  const body = html`<p><a href="/dashboard/account">← Account</a></p>
<form method="get" action="${base}" class="row filter">
<label for="type">Show</label>
<select id="type" name="type">${TYPE_FILTERS.map(
    ([value, label]) =>
      html`<option value="${value}"${value === view.type ? html` selected` : ''}>${label}</option>`,
  )}</select>
<button type="submit" class="secondary">Filter</button>
</form>
<section class="card" aria-label="Events">
${table(view, view.lockNames)}
${older(base, view.type === '' ? {} : { type: view.type }, view.nextCursor)}
</section>`;
  return appLayout(ctx, 'account', 'Account activity', body);
}
