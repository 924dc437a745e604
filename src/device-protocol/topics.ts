/**
 * The device protocol's topic grammar (docs/device-protocol.md) and who may use which topic. Pure:
 * the embedded broker's ACL, the Mosquitto ACL generator, the cloud gateway and the simulator all
 * build and read topics here, so they cannot disagree.
 */
import { MAX_PAYLOAD_BYTES, type MessageKind } from './codec.ts';
import { BASE_VERSION, type PayloadVersion, TOPIC_GENERATION } from './versions.ts';

/** Every topic carries the one kind of message it is named for. */
export type TopicKind = MessageKind;
/** Messages from the cloud to an access point. */
export type DownKind = 'cmd' | 'sim' | 'config';
/** Messages from an access point to the cloud. */
export type UpKind = Exclude<TopicKind, DownKind>;
/** What an access point publishes retained, for a cloud process that connects later to read. */
export type RetainedKind = 'status' | 'locks' | 'state';

/**
 * The most a broker keeps of one retained message. A status or a state report is a few hundred
 * bytes; the room above is for fields a later version adds. A pairing list may fill a whole payload.
 */
export const MAX_RETAINED_BYTES: Readonly<Record<RetainedKind, number>> = {
  status: 4096,
  state: 4096,
  locks: MAX_PAYLOAD_BYTES,
};

export interface ParsedTopic {
  readonly kind: TopicKind;
  readonly ap: string;
  /** The lock's device id, for per-lock topics. */
  readonly lock?: string;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UP_KINDS: ReadonlySet<string> = new Set<UpKind>(['status', 'locks', 'state', 'ack', 'sim-ack']);
const RETAINED_KINDS: ReadonlySet<string> = new Set<RetainedKind>(['status', 'locks', 'state']);
const LOCK_KINDS: ReadonlySet<string> = new Set<TopicKind>([
  'state',
  'ack',
  'sim-ack',
  'cmd',
  'sim',
  'config',
]);
const DOWN_KINDS: ReadonlySet<string> = new Set<DownKind>(['cmd', 'sim', 'config']);

export function isDeviceId(value: string): boolean {
  return ID.test(value);
}

export function isRetainedKind(kind: TopicKind): kind is RetainedKind {
  return RETAINED_KINDS.has(kind);
}

/**
 * MQTT user names: access points are `ap-{id}`; the cloud's own connection is `cloud`. No ':' in
 * either: Mosquitto's password file splits each line at the first one.
 */
export function apUsername(apId: string): string {
  return `ap-${apId}`;
}

export function apIdOfUsername(username: string | undefined): string | undefined {
  if (username === undefined || !username.startsWith('ap-')) return undefined;
  const id = username.slice(3);
  return isDeviceId(id) ? id : undefined;
}

/**
 * Topic names under an optional prefix (a deployment or a test sharing one broker with others). The
 * prefix is empty or ends with '/'.
 */
export class Topics {
  private readonly base: string;

  constructor(readonly prefix = '') {
    if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`topic prefix "${prefix}" must end with "/"`);
    if (/[+#]/.test(prefix)) throw new Error(`topic prefix "${prefix}" must not hold wildcards`);
    this.base = `${prefix}lc/${TOPIC_GENERATION}/ap/`;
  }

  /** How many levels a topic has up to and with the access point's id: `{base}{ap}` (the broker groups by it). */
  get accessPointDepth(): number {
    return this.base.split('/').length;
  }

  status(ap: string): string {
    return `${this.base}${ap}/status`;
  }

  locks(ap: string): string {
    return `${this.base}${ap}/locks`;
  }

  lock(ap: string, lock: string, kind: Exclude<TopicKind, 'status' | 'locks'>): string {
    return `${this.base}${ap}/lock/${lock}/${kind}`;
  }

  /** Everything the cloud listens to, for every access point. */
  cloudFilters(): string[] {
    return [
      `${this.base}+/status`,
      `${this.base}+/locks`,
      `${this.base}+/lock/+/state`,
      `${this.base}+/lock/+/ack`,
      `${this.base}+/lock/+/sim-ack`,
    ];
  }

  /**
   * The same for one of several cloud processes: each device message goes to one process of the
   * group (MQTT 5 shared subscriptions, also in Mosquitto's 3.1.1). Sandbox answers (sim-ack) go to
   * every process: only the one that asked waits for them.
   */
  sharedCloudFilters(group: string): string[] {
    return [
      ...this.retainedFilters().map((filter) => `$share/${group}/${filter}`),
      `$share/${group}/${this.base}+/lock/+/ack`,
      `${this.base}+/lock/+/sim-ack`,
    ];
  }

  /** What the devices keep retained at the broker: a process catches up on them as it connects. */
  retainedFilters(): string[] {
    return [`${this.base}+/status`, `${this.base}+/locks`, `${this.base}+/lock/+/state`];
  }

  /**
   * What an access point subscribes to: its locks' commands (and sandbox changes, for simulated
   * ones), and from version 2 on their settings (`config`).
   */
  apFilters(ap: string, version: PayloadVersion = BASE_VERSION): string[] {
    const filters = [`${this.base}${ap}/lock/+/cmd`, `${this.base}${ap}/lock/+/sim`];
    if (version >= 2) filters.push(`${this.base}${ap}/lock/+/config`);
    return filters;
  }

  parse(topic: string): ParsedTopic | undefined {
    if (!topic.startsWith(this.base)) return undefined;
    const parts = topic.slice(this.base.length).split('/');
    const ap = parts[0] ?? '';
    if (!isDeviceId(ap)) return undefined;
    if (parts.length === 2 && (parts[1] === 'status' || parts[1] === 'locks')) return { kind: parts[1], ap };
    if (parts.length === 4 && parts[1] === 'lock') {
      const lock = parts[2] ?? '';
      const kind = parts[3] ?? '';
      if (isDeviceId(lock) && LOCK_KINDS.has(kind)) return { kind: kind as TopicKind, ap, lock };
    }
    return undefined;
  }

  /** An access point publishes only its own up-going topics. */
  apMayPublish(apId: string, topic: string): boolean {
    const parsed = this.parse(topic);
    return parsed !== undefined && parsed.ap === apId && UP_KINDS.has(parsed.kind);
  }

  /**
   * An access point subscribes only to its own down-going topics: `+` for the lock level is fine, any
   * other wildcard (or another access point's id) is not.
   */
  apMaySubscribe(apId: string, filter: string): boolean {
    if (!filter.startsWith(`${this.base}${apId}/lock/`)) return false;
    const rest = filter.slice(`${this.base}${apId}/lock/`.length).split('/');
    if (rest.length !== 2) return false;
    const [lock = '', kind = ''] = rest;
    return (lock === '+' || isDeviceId(lock)) && DOWN_KINDS.has(kind);
  }
}
