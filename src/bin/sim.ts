/**
 * `npm run sim --` / `lockcloud sim`: simulated access points and locks in a process of their own,
 * against any broker (the server's embedded one, or Mosquitto), speaking the same device protocol
 * as the simulator inside the server. Runs until interrupted.
 *
 * Exit codes: 0 stopped, 1 the broker refused an access point's credentials, 2 a usage error. A
 * broker that is down is waited for: one line per round of attempts, 1 s apart, doubling to 30 s.
 */

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import pino from 'pino';
import { AdjustableClock } from '../adapters/system/clock.ts';
import { secretInputs } from '../config/config.ts';
import { redactSecret, secretScrubber } from '../config/redact.ts';
import { Topics } from '../device-protocol/topics.ts';
import { runBehaviour, seededRandom } from '../simulator/behaviour.ts';
import { DevicesFileError, fromCredentials, fromSeed } from '../simulator/devices-file.ts';
import { Fleet, type FleetMember } from '../simulator/fleet.ts';

function number(min: number, max: number, integer = true) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      throw new InvalidArgumentError(
        `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
      );
    return n;
  };
}

interface SimOptions {
  mqttUrl: string;
  mqttPrefix: string;
  seed?: string;
  accessPoints?: string;
  locks: number;
  latencyMs: number;
  battery: number;
  drainPerCommand: number;
  jamRate: number;
  turnsPerHour: number;
  offlinePerHour: number;
  offlineSeconds: number;
  v1Share: number;
  doorsPerHour: number;
  doorOpenSeconds: number;
  jamClearSeconds: number;
  lowBattery: number;
  keepalive: number;
  randomSeed?: number;
  logLevel: string;
}

function program(run: (options: SimOptions) => Promise<void>): Command {
  return new Command('lockcloud sim')
    .description(
      'Run simulated Wi-Fi access points and their locks against an MQTT broker (docs/device-protocol.md).\n' +
        'Give the devices either as a seed file whose access_points have secrets (--seed), or as the\n' +
        'credentials printed by `lockcloud admin register-ap --json` plus a number of locks (--access-points, --locks).',
    )
    .addOption(new Option('--mqtt-url <url>', 'the broker').env('MQTT_URL').default('mqtt://127.0.0.1:1884'))
    .addOption(
      new Option('--mqtt-prefix <prefix>', 'topic prefix, as the server’s --mqtt-prefix').default(''),
    )
    .option('--seed <file>', 'run the access points (with secrets) and locks of this seed file')
    .option('--access-points <file>', 'credentials JSON from `lockcloud admin register-ap --json`')
    .addOption(
      new Option('--locks <n>', 'locks to deal out among --access-points')
        .argParser(number(1, 100_000))
        .default(10),
    )
    .addOption(
      new Option('--latency-ms <ms>', 'time a lock takes to move').argParser(number(0, 600_000)).default(200),
    )
    .addOption(
      new Option('--battery <percent>', 'starting battery of --locks').argParser(number(0, 100)).default(100),
    )
    .addOption(
      new Option('--drain-per-command <percent>', 'battery a lock or unlock costs')
        .argParser(number(0, 100))
        .default(0),
    )
    .addOption(
      new Option('--jam-rate <p>', 'probability a lock or unlock jams')
        .argParser(number(0, 1, false))
        .default(0),
    )
    .addOption(
      new Option('--turns-per-hour <n>', 'hand turns per lock per hour')
        .argParser(number(0, 3600, false))
        .default(0),
    )
    .addOption(
      new Option('--offline-per-hour <n>', 'power losses per access point per hour')
        .argParser(number(0, 3600, false))
        .default(0),
    )
    .addOption(
      new Option('--offline-seconds <s>', 'how long a power loss lasts')
        .argParser(number(1, 86_400))
        .default(30),
    )
    .addOption(
      new Option('--v1-share <p>', 'share of access points speaking device protocol version 1 only')
        .argParser(number(0, 1, false))
        .default(0),
    )
    .addOption(
      new Option('--doors-per-hour <n>', 'door openings per lock per hour (version 2)')
        .argParser(number(0, 3600, false))
        .default(0),
    )
    .addOption(
      new Option('--door-open-seconds <s>', 'how long an opened door stays open')
        .argParser(number(1, 86_400))
        .default(30),
    )
    .addOption(
      new Option('--jam-clear-seconds <s>', 'how long a jam lasts before it is freed by hand (0: never)')
        .argParser(number(0, 86_400))
        .default(60),
    )
    .addOption(
      new Option('--low-battery <percent>', 'under this a lock refuses to move')
        .argParser(number(0, 100))
        .default(10),
    )
    .addOption(
      new Option('--keepalive <s>', 'MQTT keep-alive: a vanished access point is noticed within 1.5x')
        .argParser(number(1, 600))
        .default(5),
    )
    .addOption(
      new Option('--random-seed <n>', 'repeatable jams, turns and power losses').argParser(
        number(0, 2 ** 32 - 1),
      ),
    )
    .addOption(new Option('--log-level <level>', 'pino level').default('info'))
    .addHelpText(
      'after',
      "\nExit codes:\n  0  stopped by SIGINT or SIGTERM\n  1  the broker refused an access point's credentials\n  2  usage error: an unknown option, a bad value, a devices file that cannot be read\n",
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false)
    .action(run);
}

function members(options: SimOptions): FleetMember[] {
  if ((options.seed === undefined) === (options.accessPoints === undefined))
    throw new DevicesFileError('give exactly one of --seed FILE or --access-points FILE');
  return options.seed !== undefined
    ? fromSeed(options.seed)
    : fromCredentials(options.accessPoints ?? '', options.locks, {
        latencyMs: options.latencyMs,
        battery: options.battery,
      });
}

async function run(options: SimOptions): Promise<void> {
  const logger = pino({ level: options.logLevel });
  const random = options.randomSeed === undefined ? Math.random : seededRandom(options.randomSeed);
  const broker = redactSecret(options.mqttUrl);
  const fleet = new Fleet({
    url: options.mqttUrl,
    // One readable line per round of failed attempts (and when they are back), never a stack.
    onLinkTrouble: ({ accessPoints, reason, retryInMs }) => {
      const which = `${accessPoints} access point${accessPoints === 1 ? '' : 's'}`;
      process.stderr.write(
        reason === undefined || retryInMs === undefined
          ? `lockcloud sim: ${which} connected to ${broker} again\n`
          : `lockcloud sim: ${which} cannot connect to ${broker}: ${reason}; trying again in ${retryInMs / 1000} s\n`,
      );
    },
    topics: new Topics(options.mqttPrefix),
    clock: new AdjustableClock(),
    logger,
    lowBatteryThreshold: options.lowBattery,
    keepaliveSeconds: options.keepalive,
    drainPerCommand: options.drainPerCommand,
    jamRate: options.jamRate,
    random,
  });
  const all = members(options);
  // Drawn from the seeded generator too: the same --random-seed gives the same old access points.
  for (const member of all)
    fleet.add(options.v1Share > 0 && random() < options.v1Share ? { ...member, versions: [1] } : member);
  const locks = all.reduce((n, m) => n + m.locks.length, 0);
  const started = Date.now();
  await fleet.start();
  const stopBehaviour = runBehaviour(fleet, options, random);
  process.stdout.write(
    `lockcloud sim: ${fleet.size} access points with ${locks} locks connected to ${broker} in ${Date.now() - started} ms\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopBehaviour();
  await fleet.stop();
}

export async function sim(argv: readonly string[]): Promise<number> {
  // --mqtt-url and MQTT_URL are the server's settings of the same names: their password is never shown.
  const scrub = secretScrubber(secretInputs(process.env, argv));
  try {
    await program(run).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof DevicesFileError || (error as Error).name === 'SeedError') {
      process.stderr.write(`lockcloud sim: ${scrub((error as Error).message)}\n`);
      return 2;
    }
    process.stderr.write(`lockcloud sim: ${scrub((error as Error).message)}\n`);
    return 1;
  }
}

process.exitCode = await sim(process.argv.slice(2));
process.exit();
