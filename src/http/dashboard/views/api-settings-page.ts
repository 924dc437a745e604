import type { Delivery } from '../../../domain/delivery.ts';
import type { WebhookConfig } from '../../../domain/webhook.ts';
import type { Revealed } from '../flash.ts';
import { type Html, html, when } from '../html.ts';
import { type KeysCardView, keysCard } from './keys-card.ts';
import { appLayout, csrfField, field, type Notice, notice, type PageContext } from './layout.ts';

export interface ApiSettingsView extends KeysCardView {
  readonly unlockedUntil: number | null;
  readonly webhook: WebhookConfig | undefined;
  readonly deliveries: readonly DeliveryView[];
  readonly notice?: Notice;
  /** A secret to show this once: a new key or a webhook signing secret. */
  readonly revealed?: Revealed;
  readonly errors?: Readonly<Record<string, string>>;
  readonly webhookValues?: { readonly url: string; readonly method: string };
}

/** A new webhook signing secret, shown once (a new key is the keys card's: keys-card.ts). */
function reveal(v: ApiSettingsView, kind: 'webhook-secret'): Html {
  if (v.revealed?.kind !== kind) return html``;
  const what = 'webhook signing secret';
  return html`<div class="reveal" role="status">
<p><strong>Copy your new ${what} now.</strong> It is shown only once: after you leave or refresh this page, only its beginning is kept.</p>
<div class="row"><code class="secret" id="revealed-${kind}" data-testid="revealed-${kind}">${v.revealed.value}</code>
<button type="button" class="secondary copy" data-copy="revealed-${kind}">Copy</button></div>
</div>`;
}

function unlockCard(ctx: PageContext, v: ApiSettingsView): Html {
  return html`<section class="card" aria-labelledby="verify-title">
<h2 id="verify-title">Verify it’s you</h2>
<p>To add or delete API keys and change the webhook, confirm a code we send to <strong>${ctx.email ?? ''}</strong>. It is valid for 10 minutes.</p>
<form method="post" action="/dashboard/api-settings/code" class="button-row">${csrfField(ctx.csrf)}<button type="submit" class="secondary">Send me a code</button></form>
<form method="post" action="/dashboard/api-settings/confirm" class="stack narrow" novalidate>${csrfField(ctx.csrf)}
${field({ label: 'Verification code', name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', error: v.errors?.code })}
<button type="submit" class="primary">Confirm</button>
</form>
</section>`;
}

/** One delivery as the log shows it, on the page and in /dashboard/api/deliveries alike. */
export interface DeliveryView {
  readonly id: string;
  readonly time: string;
  readonly event: string;
  /** The lock by its nickname and the state the message reported: "Front door — unlocked". */
  readonly lock: string;
  readonly status: string;
  readonly http: string;
  readonly attempts: number;
  readonly error: string;
}

export function deliveryView(d: Delivery, nicknames: ReadonlyMap<string, string>): DeliveryView {
  const name = nicknames.get(d.deviceId) ?? `${d.deviceId.slice(0, 8)}…`;
  return {
    id: d.id,
    time: when(d.createdAt),
    event: d.event === 'test' ? 'test' : 'state changed',
    lock: `${name} — ${d.locked ? 'locked' : 'unlocked'}`,
    status: d.status,
    http: d.responseStatus === null ? '—' : String(d.responseStatus),
    attempts: d.attempts,
    error: d.error ?? '',
  };
}

/** The pill's look for a status; the script (assets/deliveries.js) uses the same classes. */
const PILL: Record<string, string> = { delivered: 'pill-ok', failed: 'pill-warn' };

function deliveryRow(d: DeliveryView): Html {
  return html`<tr data-delivery-id="${d.id}"><td>${d.time}</td><td>${d.event}</td><td>${d.lock}</td>
<td><span class="pill ${PILL[d.status] ?? ''}">${d.status}</span></td>
<td>${d.http}</td><td>${d.attempts}</td><td>${d.error}</td></tr>`;
}

function webhookCard(ctx: PageContext, v: ApiSettingsView): Html {
  const url = v.webhookValues?.url ?? v.webhook?.url ?? '';
  const method = v.webhookValues?.method ?? v.webhook?.method ?? 'POST';
  return html`<section class="card" aria-labelledby="webhook-title">
<h2 id="webhook-title">Webhook</h2>
<p class="muted">Called on every change of a lock’s state. <code>{device_id}</code> and <code>{state}</code> in the URL are filled in; messages are signed (Standard Webhooks).</p>
${reveal(v, 'webhook-secret')}
<form method="post" action="/dashboard/api-settings/webhook" class="stack" novalidate>${csrfField(ctx.csrf)}
${field({ label: 'URL', name: 'url', type: 'url', value: url, hint: 'http or https, at most 256 characters.', error: v.errors?.url })}
<div class="field"><label for="f-method">Method</label>
<select id="f-method" name="method">${['POST', 'GET'].map((m) => html`<option${m === method ? html` selected` : ''}>${m}</option>`)}</select></div>
<button type="submit" class="primary">Save webhook</button>
</form>
${
  v.webhook
    ? html`<div class="button-row">
<form method="post" action="/dashboard/api-settings/webhook/test">${csrfField(ctx.csrf)}<button type="submit" class="secondary">Send test</button></form>
<form method="post" action="/dashboard/api-settings/webhook/rotate">${csrfField(ctx.csrf)}<button type="submit" class="secondary">Rotate secret</button></form>
<form method="post" action="/dashboard/api-settings/webhook/remove">${csrfField(ctx.csrf)}<button type="submit" class="danger-link">Remove webhook</button></form>
</div>
<h3 class="log-title">Delivery log</h3>
<p class="muted" data-testid="no-deliveries"${v.deliveries.length === 0 ? '' : html` hidden`}>No deliveries yet.</p>
<div class="table-wrap"${v.deliveries.length === 0 ? html` hidden` : ''}><table class="table" data-testid="deliveries" data-live="/dashboard/api/deliveries"><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Lock — state</th><th scope="col">Status</th><th scope="col">HTTP</th><th scope="col">Attempts</th><th scope="col">Error</th></tr></thead>
<tbody>${v.deliveries.map(deliveryRow)}</tbody></table></div>`
    : ''
}
</section>`;
}

export function apiSettingsPage(ctx: PageContext, v: ApiSettingsView): Html {
  const body = html`${notice(v.notice)}
${v.unlocked ? html`<p class="muted">Unlocked until ${when(v.unlockedUntil)}.</p>` : unlockCard(ctx, v)}
${keysCard(ctx, v)}
${v.unlocked ? webhookCard(ctx, v) : ''}`;
  return appLayout(ctx, 'api-settings', 'API Settings', body, ['copy.js', 'deliveries.js']);
}
