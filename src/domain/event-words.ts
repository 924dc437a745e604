/**
 * An event said in words for a reader (docs/events.md, "Methods": "Unlocked by API key lck_4tj2… (v3)",
 * "Locked by hand"). Used by the dashboard's activity pages and the CLI, so it takes the event's
 * plain parts rather than one representation of it: the domain's LockEvent and the wire JSON (through
 * `wordsInput`) both fit. No I/O; a type this code does not know is said as its name.
 */

/**
 * What the words are made of; a guest's copy has no key prefix nor app name (redactFor), and the
 * words do without.
 */
export interface EventForWords {
  readonly type: string;
  readonly actor: {
    readonly kind: string;
    readonly keyPrefix?: string | undefined;
    readonly appName?: string | undefined;
  };
  readonly method: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The wire event (`GET /ext/events`, the SDK's LockcloudEvent) as EventForWords. */
export function wordsInput(event: {
  readonly type: string;
  readonly actor: {
    readonly kind: string;
    readonly key_prefix?: string | undefined;
    readonly app_name?: string | undefined;
  };
  readonly method: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}): EventForWords {
  return {
    type: event.type,
    actor: { kind: event.actor.kind, keyPrefix: event.actor.key_prefix, appName: event.actor.app_name },
    method: event.method,
    data: event.data,
  };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;

/** A key as the dashboard shows it: its display prefix and an ellipsis, never more. */
const keyWords = (prefix: string | undefined): string =>
  prefix === undefined ? 'API key' : `API key ${prefix}…`;

const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** An OAuth app as the dashboard shows it: its name when it acted, in guillemets; unnamed to a guest. */
const appWords = (name: string | undefined): string => (name === undefined ? 'an app' : `the app «${name}»`);

/** The short name of a method, in brackets after a command's words. */
const METHOD_SHORT: Readonly<Record<string, string>> = {
  api_v3: 'v3',
  api_v1: 'v1',
  api_ext: 'ext',
  partner: 'partner',
  dashboard: 'dashboard',
  manual: 'by hand',
  auto: 'auto-lock',
};

/** Who acted, in a few words: the dashboard's "who" column. */
export function actorWords(actor: EventForWords['actor']): string {
  switch (actor.kind) {
    case 'api_key':
      return keyWords(actor.keyPrefix);
    case 'partner':
      return actor.keyPrefix === undefined ? 'Partner automation' : `Partner (${keyWords(actor.keyPrefix)})`;
    case 'v1_token':
      return 'v1 app';
    case 'dashboard_session':
      return 'Dashboard';
    case 'account':
      return 'The account (e-mailed code)';
    case 'device':
      return 'The device';
    case 'system':
      return 'The server';
    case 'grant':
      return 'A guest (grant)';
    case 'oauth_app':
      return capitalized(appWords(actor.appName));
    default:
      return actor.kind;
  }
}

/** How a lock moved: "by API key lck_4tj2… (v3)", "by hand", "from the dashboard". */
function movedHow(event: EventForWords): string {
  // An app is named by whichever method it came (its tokens' routes are /ext's): the method in brackets.
  if (event.actor.kind === 'oauth_app') {
    const short = event.method === null ? '' : ` (${METHOD_SHORT[event.method] ?? event.method})`;
    return `by ${appWords(event.actor.appName)}${short}`;
  }
  switch (event.method) {
    case 'api_v3':
      return `by ${keyWords(event.actor.keyPrefix)} (v3)`;
    case 'api_v1':
      return 'by v1 app';
    case 'api_ext':
      return event.actor.kind === 'grant'
        ? 'by a guest (grant)'
        : `by ${keyWords(event.actor.keyPrefix)} (ext)`;
    case 'partner':
      return `by partner automation${event.actor.keyPrefix === undefined ? '' : ` (${keyWords(event.actor.keyPrefix)})`}`;
    case 'dashboard':
      return 'from the dashboard';
    case 'manual':
      return 'by hand';
    case 'auto':
      return 'automatically';
    default:
      return event.method === null ? '' : `(${event.method})`;
  }
}

const underThreshold = (threshold: unknown): string =>
  text(threshold) === undefined ? '' : `, under ${text(threshold)} %`;

function commandWords(event: EventForWords): string {
  const command = capitalized(text(event.data.command) ?? 'command');
  const short = event.method === null ? '' : ` (${METHOD_SHORT[event.method] ?? event.method})`;
  switch (event.type) {
    case 'command.requested':
      return `${command} requested ${movedHow(event)}`.trimEnd();
    case 'command.succeeded':
      return `${command} succeeded${short}`;
    default:
      return `${command} failed: ${text(event.data.reason) ?? 'unknown reason'}${short}`;
  }
}

const PASSWORD: Readonly<Record<string, string>> = {
  changed: 'Password changed',
  reset: 'Password reset with an e-mailed code',
  admin: 'Password set by the operator',
};

/** The event in one sentence, without its time (the reader's page or terminal shows that). */
export function eventWords(event: EventForWords): string {
  const d = event.data;
  switch (event.type) {
    case 'lock.locked':
      return ['Locked', movedHow(event), d.door === 'open' ? 'with the door open' : '']
        .filter((part) => part !== '')
        .join(' ');
    case 'lock.unlocked':
      return `Unlocked ${movedHow(event)}`.trimEnd();
    case 'lock.online':
      return 'Came back online';
    case 'lock.offline':
      return 'Went offline';
    // The thresholds are each lock's own, and an owner's change of them can make the crossing: say which.
    case 'lock.battery_low':
      return `Battery low (${text(d.battery) ?? '?'} %${underThreshold(d.threshold)})`;
    case 'lock.battery_critical':
      return `Battery critical (${text(d.battery) ?? '?'} %${underThreshold(d.threshold)})`;
    case 'lock.battery_ok':
      return `Battery OK again (${text(d.battery) ?? '?'} %)`;
    case 'lock.jammed':
      return 'Jammed: the bolt is blocked';
    case 'lock.unjammed':
      return 'No longer jammed';
    case 'lock.door_opened':
      return 'Door opened';
    case 'lock.door_closed':
      return 'Door closed';
    case 'lock.auto_locked':
      return text(d.after_seconds) === undefined
        ? 'Auto-locked'
        : `Auto-locked ${text(d.after_seconds)} s after unlocking`;
    case 'command.requested':
    case 'command.succeeded':
    case 'command.failed':
      return commandWords(event);
    case 'access_point.online':
      return `Access point ${text(d.name) ?? text(d.access_point_id) ?? ''} connected`.replace('  ', ' ');
    case 'access_point.offline':
      return `Access point ${text(d.name) ?? text(d.access_point_id) ?? ''} went away`.replace('  ', ' ');
    case 'share.created':
      return `Shared with account ${text(d.account_id) ?? '?'}`;
    case 'share.removed':
      return `Share with account ${text(d.account_id) ?? '?'} ended`;
    case 'grant.invited':
      return `Grant ${text(d.grant_id) ?? '?'} (${text(d.role) ?? '?'}) offered to account ${text(d.guest_id) ?? '?'}`;
    case 'grant.accepted':
      return `Grant ${text(d.grant_id) ?? '?'} accepted`;
    case 'grant.declined':
      return `Grant ${text(d.grant_id) ?? '?'} declined`;
    case 'grant.revoked':
      return `Grant ${text(d.grant_id) ?? '?'} revoked`;
    case 'grant.changed':
      return `Grant ${text(d.grant_id) ?? '?'} changed`;
    case 'grant.used':
      return `One-time grant ${text(d.grant_id) ?? '?'} used`;
    case 'api_key.created':
      return `${keyWords(text(d.key_prefix))} created`;
    case 'api_key.deleted':
      return `${keyWords(text(d.key_prefix))} deleted`;
    case 'oauth_app.authorized':
      return `App ${text(d.app_name) ?? text(d.app_id) ?? '?'} authorized`;
    case 'oauth_app.revoked':
      return `App ${text(d.app_name) ?? text(d.app_id) ?? '?'} no longer authorized`;
    case 'webhook.updated':
      return `Webhook set to ${text(d.host) ?? 'a receiver'}`;
    case 'webhook.removed':
      return 'Webhook removed';
    case 'webhook.endpoint_created':
      return `Webhook endpoint to ${text(d.host) ?? 'a receiver'} added`;
    case 'webhook.endpoint_updated':
      return `Webhook endpoint to ${text(d.host) ?? 'a receiver'} changed`;
    case 'webhook.endpoint_removed':
      return `Webhook endpoint to ${text(d.host) ?? 'a receiver'} removed`;
    case 'webhook.endpoint_disabled':
      return `Webhook endpoint to ${text(d.host) ?? 'a receiver'} disabled${text(d.reason) === undefined ? '' : ` (${text(d.reason)})`}`;
    case 'account.password_changed':
      return PASSWORD[text(d.how) ?? ''] ?? 'Password changed';
    case 'account.login_failed':
      return `Failed login from ${text(d.client_ip) ?? 'an unknown address'}`;
    default:
      return event.type;
  }
}
