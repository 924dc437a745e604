/**
 * The files an external Mosquitto 2 broker needs to apply the device protocol's rules itself, as
 * the embedded broker does (docs/device-protocol.md): a password file (`mosquitto_passwd` format),
 * an ACL file and a configuration snippet. The topics come from `Topics`, the one place that says
 * who may use which topic, so the two brokers cannot disagree.
 *
 * Mosquitto's ACL `pattern` lines (`%u`) cannot strip the `ap:` of a user name, so each access
 * point gets a `user` block of its own.
 */
import { chmodSync, chownSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Topics } from '../../../device-protocol/topics.ts';
import { LATEST_VERSION, TOPIC_GENERATION } from '../../../device-protocol/versions.ts';

export interface MosquittoUser {
  readonly username: string;
  /** A `$7$` hash (mosquitto-password.ts). */
  readonly hash: string;
}

export interface MosquittoAccessPoint extends MosquittoUser {
  readonly apId: string;
}

export interface MosquittoListener {
  readonly port: number;
  /** The address to listen on; undefined: every interface. */
  readonly bind?: string;
}

/** What the broker lets clients cost: the embedded broker's limits, as far as Mosquitto has them. */
export interface MosquittoLimits {
  /** Clients connected at once on the listener (lockcloud's --mqtt-max-connections). */
  readonly maxConnections: number;
  /** The largest packet, header included (packet-limits.ts). */
  readonly maxPacketBytes: number;
}

export interface MosquittoFiles {
  readonly passwd: string;
  readonly acl: string;
  readonly conf: string;
}

const HEADER =
  '# Written by `lockcloud admin mqtt-acl`: the whole truth, overwritten at every run. Do not edit.';

/**
 * Mosquitto splits a password file line at its first ':' (and `mosquitto_passwd` refuses such
 * names), the ACL file ends a name at the line's end, and '#' starts a comment: a user name that
 * would be read as something else is refused rather than written.
 */
export function checkMosquittoUsername(username: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (username === '' || /[:\s#\u0000-\u001f\u007f]/.test(username))
    throw new Error(
      `the MQTT user name "${username}" cannot be written to Mosquitto's password file: ` +
        "it must not be empty nor hold ':', '#', spaces or control characters",
    );
}

function checkHash(user: MosquittoUser): void {
  if (!/^\$7\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/.test(user.hash))
    throw new Error(`the broker hash of ${user.username} is not a Mosquitto $7$ hash`);
}

/** `username:hash` lines: the cloud's users first (one per server process), then the access points. */
export function passwordFile(
  cloud: MosquittoUser | readonly MosquittoUser[],
  accessPoints: readonly MosquittoAccessPoint[],
): string {
  const users = [...(Array.isArray(cloud) ? cloud : [cloud]), ...accessPoints];
  const seen = new Set<string>();
  for (const user of users) {
    checkMosquittoUsername(user.username);
    checkHash(user);
    if (seen.has(user.username)) throw new Error(`the MQTT user name ${user.username} is used twice`);
    seen.add(user.username);
  }
  return `${users.map((user) => `${user.username}:${user.hash}`).join('\n')}\n`;
}

/**
 * What each access point may write (its up-going topics) and read (its down-going ones, of the
 * latest version: the file does not know which version an access point speaks, and one may learn a
 * later version by a firmware update without a new run of `lockcloud admin mqtt-acl`).
 */
export function accessPointRules(topics: Topics, apId: string): { write: string[]; read: string[] } {
  return {
    write: [
      topics.status(apId),
      topics.locks(apId),
      topics.lock(apId, '+', 'state'),
      topics.lock(apId, '+', 'ack'),
      topics.lock(apId, '+', 'sim-ack'),
    ],
    read: topics.apFilters(apId, LATEST_VERSION),
  };
}

/**
 * The cloud may read and write every topic of the protocol; an access point only its own. Mosquitto
 * 2.0 drops a refused PUBLISH silently (MQTT 3.1.1) and grants any SUBSCRIBE, but delivers only the
 * messages the subscriber's user may read (checked on every message, tested in
 * test/devices/mosquitto-acl.test.ts).
 */
export function aclFile(
  topics: Topics,
  cloudUsernames: string | readonly string[],
  accessPoints: readonly MosquittoAccessPoint[],
): string {
  const clouds: readonly string[] = typeof cloudUsernames === 'string' ? [cloudUsernames] : cloudUsernames;
  const lines = [HEADER];
  for (const cloud of clouds) {
    checkMosquittoUsername(cloud);
    lines.push(
      '',
      '# The cloud (a lockcloud server process): every topic of the device protocol.',
      `user ${cloud}`,
      `topic readwrite ${topics.prefix}lc/${TOPIC_GENERATION}/#`,
    );
  }
  for (const ap of accessPoints) {
    checkMosquittoUsername(ap.username);
    const rules = accessPointRules(topics, ap.apId);
    lines.push('', `# Access point ${ap.apId}: its own topics only.`, `user ${ap.username}`);
    for (const topic of rules.write) lines.push(`topic write ${topic}`);
    for (const topic of rules.read) lines.push(`topic read ${topic}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Device messages waiting for one client, at most: ten per lock of 100,000, in 256 MB. */
export const MAX_QUEUED_MESSAGES = 1_000_000;
export const MAX_QUEUED_BYTES = 256 * 2 ** 20;

/** A configuration for the broker (or lines to add to one): `dir` is where passwd and acl will be. */
export function mosquittoConf(listener: MosquittoListener, limits: MosquittoLimits, dir: string): string {
  if (!Number.isInteger(listener.port) || listener.port < 1 || listener.port > 65535)
    throw new Error(`the port must be from 1 to 65535, not ${listener.port}`);
  if (listener.bind !== undefined && !/^[0-9A-Za-z.:-]+$/.test(listener.bind))
    throw new Error(`"${listener.bind}" is not an address to listen on`);
  if (/[\n\r]/.test(dir)) throw new Error('the directory name must not hold a line break');
  for (const [name, value] of Object.entries(limits))
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} must be a whole number above 0, not ${value}`);
  const abs = resolve(dir);
  return [
    HEADER,
    "# Mosquitto 2 for lockcloud's device link. Run it as is (mosquitto -c this-file), or copy these",
    "# lines into the broker's configuration. Reload the broker (SIGHUP) after every run.",
    `listener ${listener.port}${listener.bind === undefined ? '' : ` ${listener.bind}`}`,
    '# Clients connected at once on this listener, as many as the embedded broker takes in all.',
    `max_connections ${limits.maxConnections}`,
    'allow_anonymous false',
    `password_file ${join(abs, 'passwd')}`,
    `acl_file ${join(abs, 'acl')}`,
    "# One session per user name: a device cannot take over another's session by its client id.",
    'use_username_as_clientid true',
    "# Without it Nagle's algorithm and delayed ACKs add about 40 ms to every hop of a command.",
    'set_tcp_nodelay true',
    "# A packet over the device protocol's payload limit (with its topic and header) is refused at its",
    '# header and its client disconnected, whether it has logged in or not: nothing of it is buffered.',
    `max_packet_size ${limits.maxPacketBytes}`,
    "# The cloud's connection must get every device message. After a broker restart every access point",
    '# and lock speaks at once (100,000 locks: about 110,000 messages), faster than the cloud handles',
    "# them, and it reads no faster than it handles. Mosquitto's default keeps 1,000 waiting per client",
    '# and drops the rest without a word: lost pairings and states. (Mosquitto 2.0.11 delivers too',
    '# little with 0, "no maximum": a bound, then, far above any storm, and one in bytes.)',
    `max_queued_messages ${MAX_QUEUED_MESSAGES}`,
    `max_queued_bytes ${MAX_QUEUED_BYTES}`,
    '# Mosquitto limits neither connections per client address nor (but to about 90 s) the time a',
    '# client takes to log in: limit the first in the firewall (docs/security.md).',
    '',
  ].join('\n');
}

/**
 * Writes the files (mode 0600) into `dir`, each through a temporary file renamed over the old one,
 * so the broker never reads half a file; a file that existed keeps its owner (chown it once to the
 * broker's user). Returns the paths written.
 */
export function writeMosquittoFiles(
  dir: string,
  files: MosquittoFiles,
): { passwd: string; acl: string; conf: string } {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true, mode: 0o700 });
  const write = (name: string, text: string): string => {
    const path = join(abs, name);
    const temp = join(abs, `.${name}.${process.pid}.tmp`);
    writeFileSync(temp, text, { mode: 0o600 });
    chmodSync(temp, 0o600); // a temporary file left by a crash keeps its mode otherwise
    try {
      const old = statSync(path);
      chownSync(temp, old.uid, old.gid);
    } catch {
      // No old file, or not ours to give away: the new one stays the writer's.
    }
    renameSync(temp, path);
    return path;
  };
  return {
    passwd: write('passwd', files.passwd),
    acl: write('acl', files.acl),
    conf: write('mosquitto.conf', files.conf),
  };
}
