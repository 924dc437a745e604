/**
 * `npm start` / `lockcloud serve`: reads the configuration, starts the server, prints where it is
 * (and, on the first start of the sandbox, the demo credentials, which are never shown again).
 * `--help` lists the settings (from src/config/settings.ts).
 */
import { DEMO_EMAIL } from '../app/demo.ts';
import { SeedError } from '../app/seed/validate.ts';
import { ConfigError, describeConfig, loadConfig, secretInputs } from '../config/config.ts';
import { settingsHelp } from '../config/docs.ts';
import { secretScrubber } from '../config/redact.ts';
import { createServer, StartupError } from '../main.ts';

/**
 * How the person who started this server runs the admin CLI: through npm in a clone (`npm start`
 * runs bin/lockcloud.js, and `lockcloud` is no command there), else the package's command.
 */
function adminCommand(): string {
  const fromNpm = process.env.npm_lifecycle_event === 'start' && process.env.npm_package_name === 'lockcloud';
  return fromNpm ? 'npm run admin --' : 'lockcloud admin';
}

/** A path as a shell reads it back: quoted only when it must be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** How long a failed start may take to let go of what it still holds before it is cut off. */
const FAILED_START_EXIT_MS = 5_000;

/**
 * A failed start has closed whatever it had opened (main.ts), so the process ends by itself with
 * `code`, as soon as the last socket is gone. Should something still be open after a few seconds (a
 * bug), it says what and exits anyway: an operator's restart loop must never hang on it.
 */
function exitOnceClosed(code: number): void {
  process.exitCode = code;
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(', ');
    process.stderr.write(`lockcloud: still open after the failed start: ${open}; exiting\n`);
    process.exit(code);
  }, FAILED_START_EXIT_MS).unref();
}

export async function serve(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(settingsHelp());
    return;
  }
  // Whatever reaches the terminal from here on leaves out the secret settings' values, valid or
  // not: a driver's error may echo the URL it was given, or its password.
  const scrub = secretScrubber(secretInputs(process.env, argv));
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    const config = loadConfig(process.env, argv);
    server = await createServer(config);
    const baseUrl = await server.listen();
    server.logger.info(
      { config: describeConfig(config), baseUrl, metricsUrl: server.metricsUrl ?? null },
      'lockcloud started',
    );
    const { brokerUrl, broker } = server.devices;
    const lines = [
      ``,
      `lockcloud is listening on ${baseUrl}  (${config.mode} mode)`,
      `  API docs: ${baseUrl}/docs`,
      // Where access points and `lockcloud sim` connect: with --mqtt-port 0 nowhere else but the log.
      `  devices:  ${brokerUrl}  (${broker === undefined ? 'the external MQTT broker' : 'the embedded MQTT broker'})`,
    ];
    if (server.metricsUrl !== undefined) lines.push(`  metrics:  ${server.metricsUrl}`);
    const { report } = server;
    if (report.kind === 'demo') {
      const { demo } = report;
      lines.push(
        `  Demo account created (shown once, stored only hashed):`,
        `    login:    ${demo.email} / ${demo.password}`,
        `    API key:  ${demo.apiKey}`,
        `  Try:  curl -H "Authorization: ${demo.apiKey}" ${baseUrl}/public/locks`,
      );
    } else if (report.kind === 'existing' && report.demoData) {
      // Its credentials were printed once, at the start that made it: say how to get new ones.
      const where =
        config.databaseUrl === undefined
          ? `--data ${shellWord(config.dataDir)}`
          : '(with this DATABASE_URL set)';
      lines.push(
        `  Demo account: ${DEMO_EMAIL} (its password and API key were shown at its first start only)`,
        `    new ones: ${adminCommand()} demo-credentials ${where}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SeedError || error instanceof StartupError) {
      process.stderr.write(`lockcloud: ${scrub(error.message)}\n`);
      exitOnceClosed(2);
    } else {
      process.stderr.write(`lockcloud: failed to start\n${scrub((error as Error).stack ?? String(error))}\n`);
      exitOnceClosed(1);
    }
    return;
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

await serve(process.argv.slice(2));
