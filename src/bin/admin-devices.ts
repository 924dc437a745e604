/**
 * The admin CLI's device commands: registering access points (their MQTT credentials are printed
 * once), listing and removing them, and writing an external Mosquitto's password, ACL and
 * configuration files. Added to the admin program by src/bin/admin.ts.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { CLOUD_USERNAME } from '../adapters/devices/mqtt/embedded-broker.ts';
import {
  aclFile,
  mosquittoConf,
  passwordFile,
  writeMosquittoFiles,
} from '../adapters/devices/mqtt/mosquitto-files.ts';
import { mosquittoHash, mosquittoPasswordHasher } from '../adapters/devices/mqtt/mosquitto-password.ts';
import { maxPacketBytes } from '../adapters/devices/mqtt/packet-limits.ts';
import { AdjustableClock } from '../adapters/system/clock.ts';
import { cryptoRandom, sha256Hasher } from '../adapters/system/crypto.ts';
import { type AccessPointSummary, AccessPoints, MAX_REGISTER_COUNT } from '../app/access-points.ts';
import { loadConfig } from '../config/config.ts';
import { apUsername, Topics } from '../device-protocol/topics.ts';
import { DomainError } from '../domain/errors.ts';
import { openStore } from '../open-store.ts';

/** Makes the error the admin program answers with exit code 2 (usage or configuration). */
export type UsageErrorFactory = (message: string) => Error;

interface Context {
  readonly accessPoints: AccessPoints;
  readonly mqttPrefix: string;
  readonly mqttMaxConnections: number;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const iso = (instant: number | null): string | null =>
  instant === null ? null : new Date(instant).toISOString();

function wholeNumber(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new InvalidArgumentError('not a whole number');
  return Number(value);
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function accessPointsJson(aps: readonly AccessPointSummary[]): string {
  const rows = aps.map((ap) => ({
    id: ap.id,
    account: ap.accountEmail,
    name: ap.name,
    online: ap.online,
    last_seen_at: iso(ap.lastSeenAt),
    created_at: iso(ap.createdAt),
  }));
  return JSON.stringify(rows, null, 2);
}

function accessPointsTable(aps: readonly AccessPointSummary[]): string {
  if (aps.length === 0) return 'no access points';
  return table([
    ['ID', 'ACCOUNT', 'NAME', 'ONLINE', 'LAST SEEN'],
    ...aps.map((ap) => [
      ap.id,
      ap.accountEmail ?? '(gone)',
      ap.name,
      ap.online ? 'yes' : 'no',
      iso(ap.lastSeenAt) ?? 'never',
    ]),
  ]);
}

const EXTERNAL_BROKER_HINT =
  'with an external broker (Mosquitto), run `lockcloud admin mqtt-acl` again and reload the broker';

// One broker user per server process; more processes than this want a clustered broker anyway.
const MAX_CLOUD_USERS = 256;

/** Adds register-ap, access-points, remove-ap and mqtt-acl to the admin program. */
export function addDeviceCommands(root: Command, usage: UsageErrorFactory): void {
  /** Opens the configured store (as the other admin commands do), runs `work`, closes the store. */
  async function withAccessPoints<T>(command: Command, work: (context: Context) => Promise<T>): Promise<T> {
    const { data } = command.optsWithGlobals<{ data?: string }>();
    const config = loadConfig(process.env, data === undefined ? [] : ['--data', data]);
    // Device commands seal nothing: on PostgreSQL they need no data directory.
    if (config.databaseUrl === undefined && !isDirectory(config.dataDir))
      throw usage(`no data directory at ${config.dataDir} (pass --data DIR or set LOCKCLOUD_DATA)`);
    const store = await openStore(config);
    try {
      const accessPoints = new AccessPoints({
        store,
        clock: new AdjustableClock(),
        random: cryptoRandom,
        secrets: sha256Hasher,
        brokerPasswords: mosquittoPasswordHasher(),
        username: apUsername,
      });
      return await work({
        accessPoints,
        mqttPrefix: config.mqttPrefix,
        mqttMaxConnections: config.mqttMaxConnections,
      });
    } finally {
      await store.close();
    }
  }

  root
    .command('register-ap')
    .description("register access points for an account; prints each one's MQTT credentials this once")
    .argument('<email>')
    .option('--name <name>', 'its name (numbered when --count is over 1)', 'Access point')
    .option('--count <n>', `how many (at most ${MAX_REGISTER_COUNT})`, wholeNumber, 1)
    .option('--json', "print only [{id, username, password}], the simulator's credentials file")
    .action(async (email: string, opts: { name: string; count: number; json?: boolean }, cmd: Command) => {
      const registered = await withAccessPoints(cmd, ({ accessPoints }) =>
        accessPoints.register(email, opts.name, opts.count),
      );
      if (opts.json === true) {
        const rows = registered.map((ap) => ({ id: ap.id, username: ap.username, password: ap.secret }));
        say(JSON.stringify(rows, null, 2));
        return;
      }
      for (const ap of registered) {
        say(`registered access point "${ap.name}" for ${ap.accountEmail}`);
        say(`  id:       ${ap.id}`);
        say(`  username: ${ap.username}`);
        say(`  password: ${ap.secret}`);
      }
      say('the passwords are shown this once: only their hashes are kept');
      say(EXTERNAL_BROKER_HINT);
    });

  root
    .command('access-points')
    .description("list the access points, or one account's: id, account, name, online, last seen")
    .argument('[email]')
    .option('--json', 'as JSON, for scripts')
    .action(async (email: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const aps = await withAccessPoints(cmd, ({ accessPoints }) => accessPoints.list(email));
      say(opts.json === true ? accessPointsJson(aps) : accessPointsTable(aps));
    });

  root
    .command('remove-ap')
    .description('remove an access point: its credentials stop working; its locks stay, unpaired')
    .argument('<id>')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await withAccessPoints(cmd, ({ accessPoints }) => accessPoints.remove(id));
      say(`removed access point ${id.trim().toLowerCase()}; its locks stay in their account, unpaired`);
      say(EXTERNAL_BROKER_HINT);
    });

  root
    .command('mqtt-acl')
    .description(
      'write the password file, ACL file and configuration of an external Mosquitto 2 broker (mode 0600). ' +
        'Each run writes the whole truth: the files are overwritten, so run it again after every ' +
        'register-ap or remove-ap, and reload the broker (SIGHUP)',
    )
    .requiredOption('--out <dir>', 'where to write passwd, acl and mosquitto.conf (made if missing)')
    .option('--prefix <prefix>', 'the topic prefix (default: the configured LOCKCLOUD_MQTT_PREFIX)')
    .option(
      '--cloud-password <password>',
      'the password of the user `cloud`; if not given, a new one is made and printed once ' +
        '(pass the current one on later runs to keep it)',
    )
    .option(
      '--cloud-users <n>',
      'how many server processes will connect: with more than 1, users cloud-1 … cloud-N (one each, ' +
        'since the broker takes the user name as the client id), all with the cloud password',
      wholeNumber,
      1,
    )
    .option('--port <port>', "the broker's listener port", wholeNumber, 1883)
    .option('--bind <address>', 'the address the listener binds (default: every interface)')
    .option(
      '--max-connections <n>',
      'clients connected at once (default: the configured LOCKCLOUD_MQTT_MAX_CONNECTIONS)',
      wholeNumber,
    )
    .action(
      async (
        opts: {
          out: string;
          prefix?: string;
          cloudPassword?: string;
          cloudUsers: number;
          port: number;
          bind?: string;
          maxConnections?: number;
        },
        cmd: Command,
      ) => {
        if (opts.cloudPassword !== undefined && !/^[\x21-\x7e]{16,}$/.test(opts.cloudPassword))
          throw usage('the cloud password must be at least 16 printable characters, without spaces');
        if (opts.cloudUsers < 1 || opts.cloudUsers > MAX_CLOUD_USERS)
          throw usage(`--cloud-users must be from 1 to ${MAX_CLOUD_USERS}`);
        const { users, missing, prefix, maxConnections } = await withAccessPoints(
          cmd,
          async ({ accessPoints, mqttPrefix, mqttMaxConnections }) => ({
            ...(await accessPoints.brokerUsers()),
            prefix: opts.prefix ?? mqttPrefix,
            maxConnections: opts.maxConnections ?? mqttMaxConnections,
          }),
        );
        if (maxConnections < 1) throw usage('--max-connections must be at least 1');
        let topics: Topics;
        try {
          if (/\s/.test(prefix)) throw new Error(`topic prefix "${prefix}" must not hold spaces`);
          topics = new Topics(prefix);
        } catch (error) {
          throw usage((error as Error).message);
        }
        const cloudPassword = opts.cloudPassword ?? cryptoRandom.secret(24);
        const cloudNames =
          opts.cloudUsers === 1
            ? [CLOUD_USERNAME]
            : Array.from({ length: opts.cloudUsers }, (_, i) => `${CLOUD_USERNAME}-${i + 1}`);
        const cloud = cloudNames.map((username) => ({ username, hash: mosquittoHash(cloudPassword) }));
        let written: { passwd: string; acl: string; conf: string };
        try {
          written = writeMosquittoFiles(opts.out, {
            passwd: passwordFile(cloud, users),
            acl: aclFile(topics, cloudNames, users),
            conf: mosquittoConf(
              { port: opts.port, ...(opts.bind === undefined ? {} : { bind: opts.bind }) },
              { maxConnections, maxPacketBytes: maxPacketBytes(topics.prefix) },
              opts.out,
            ),
          });
        } catch (error) {
          throw new DomainError('CONFLICT', (error as Error).message);
        }
        say(
          `wrote ${written.passwd} (${cloudNames.length === 1 ? 'the cloud' : `the cloud as ${cloudNames.join(', ')},`} and ${users.length} access points)`,
        );
        say(`wrote ${written.acl}`);
        say(`wrote ${written.conf}`);
        if (missing > 0)
          say(
            `warning: ${missing} access points have no broker hash (registered by a seed file): Mosquitto will refuse them`,
          );
        if (opts.cloudPassword === undefined) {
          say(`cloud password (shown this once): ${cloudPassword}`);
          say(
            `put it in MQTT_URL as mqtt://${cloudNames[0]}:${cloudPassword}@host:port${cloudNames.length > 1 ? ` (${cloudNames.at(-1)} for the last process)` : ''}`,
          );
        }
        if (process.getuid?.() === 0 && statSync(written.passwd).uid === 0)
          say(
            `the files belong to root: Mosquitto started as root reads them as its own user (chown -R mosquitto: ${resolve(opts.out)})`,
          );
        say('reload the broker to apply: kill -HUP <its pid>, or systemctl reload mosquitto');
      },
    );
}
