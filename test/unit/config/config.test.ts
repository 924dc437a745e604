import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Config, ConfigError, describeConfig, loadConfig } from '../../../src/config/config.ts';

const DEFAULTS: Config = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './data',
  databaseUrl: undefined,
  databasePoolSize: 10,
  databaseReadCache: true,
  seedFile: undefined,
  mode: 'sandbox',
  rateLimit: true,
  commandTimeoutMs: 15_000,
  lowBatteryThreshold: 10,
  offlineGraceSeconds: 60,
  eventRetentionDays: 90,
  eventStreamHeartbeatMs: 15000,
  eventStreamsPerAccount: 20,
  eventStreamBufferBytes: 1048576,
  webhookEndpointDisableDays: 3,
  logLevel: 'info',
  redisUrl: undefined,
  redisPrefix: 'lockcloud:',
  rateLimitsFile: undefined,
  trustProxy: [],
  publicUrl: undefined,
  webhookTimeoutMs: 5000,
  webhookAllow: [],
  secretKey: undefined,
  mqttUrl: undefined,
  mqttHost: '127.0.0.1',
  mqttPort: 1884,
  mqttPrefix: '',
  mqttShareGroup: 'lockcloud',
  mqttMaxConnections: 10_000,
  mqttMaxConnectionsPerAddress: 500,
  simulator: true,
  smtpUrl: undefined,
  mailFrom: 'lockcloud <no-reply@lockcloud.invalid>',
  shutdownGraceMs: 20_000,
  metricsPort: undefined,
  metricsHost: '127.0.0.1',
};

/** The problems loadConfig reports; fails if it accepts the input. */
function problems(env: Record<string, string>, argv: string[] = []): readonly string[] {
  try {
    loadConfig(env, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    for (const problem of error.problems) assert.ok(error.message.includes(problem));
    return error.problems;
  }
  assert.fail(`accepted env ${JSON.stringify(env)} argv ${JSON.stringify(argv)}`);
}

describe('loadConfig', () => {
  it('has the documented defaults: port 8080 on 127.0.0.1, ./data, sandbox, rate limits on', () => {
    assert.deepEqual({ ...loadConfig({}, []) }, DEFAULTS);
  });

  it('reads nothing but its arguments (process.env is ignored)', () => {
    const saved = process.env.LOCKCLOUD_PORT;
    process.env.LOCKCLOUD_PORT = '1234';
    try {
      assert.equal(loadConfig({}, []).port, 8080);
    } finally {
      if (saved === undefined) delete process.env.LOCKCLOUD_PORT;
      else process.env.LOCKCLOUD_PORT = saved;
    }
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig(
      {
        LOCKCLOUD_PORT: '9000',
        LOCKCLOUD_HOST: '0.0.0.0',
        LOCKCLOUD_DATA: '/var/lib/lockcloud',
        LOCKCLOUD_SEED: '/etc/seed.json',
        LOCKCLOUD_MODE: 'production',
        LOCKCLOUD_RATE_LIMIT: 'off',
        LOCKCLOUD_COMMAND_TIMEOUT_MS: '2000',
        LOCKCLOUD_LOW_BATTERY_THRESHOLD: '20',
        LOCKCLOUD_EVENT_RETENTION_DAYS: '30',
        LOCKCLOUD_EVENT_STREAM_HEARTBEAT_MS: '500',
        LOCKCLOUD_EVENT_STREAMS_PER_ACCOUNT: '3',
        LOCKCLOUD_EVENT_STREAM_BUFFER_BYTES: '4096',
        LOG_LEVEL: 'warn',
        MQTT_URL: 'mqtt://cloud:pw@broker:1883',
        LOCKCLOUD_MQTT_HOST: '0.0.0.0',
        LOCKCLOUD_MQTT_PORT: '2883',
        LOCKCLOUD_MQTT_PREFIX: 'site-1/',
        LOCKCLOUD_SIMULATOR: 'off',
        LOCKCLOUD_SHUTDOWN_GRACE_MS: '5000',
        LOCKCLOUD_PUBLIC_URL: 'https://locks.example.com/',
      },
      [],
    );
    assert.deepEqual(
      { ...config },
      {
        port: 9000,
        host: '0.0.0.0',
        dataDir: '/var/lib/lockcloud',
        databaseUrl: undefined,
        databasePoolSize: 10,
        databaseReadCache: true,
        seedFile: '/etc/seed.json',
        mode: 'production',
        rateLimit: false,
        commandTimeoutMs: 2000,
        lowBatteryThreshold: 20,
        offlineGraceSeconds: 60,
        eventRetentionDays: 30,
        eventStreamHeartbeatMs: 500,
        eventStreamsPerAccount: 3,
        eventStreamBufferBytes: 4096,
        webhookEndpointDisableDays: 3,
        logLevel: 'warn',
        redisUrl: undefined,
        redisPrefix: 'lockcloud:',
        rateLimitsFile: undefined,
        trustProxy: [],
        publicUrl: 'https://locks.example.com',
        webhookTimeoutMs: 5000,
        webhookAllow: [],
        secretKey: undefined,
        smtpUrl: undefined,
        mailFrom: 'lockcloud <no-reply@lockcloud.invalid>',
        mqttUrl: 'mqtt://cloud:pw@broker:1883',
        mqttHost: '0.0.0.0',
        mqttPort: 2883,
        mqttPrefix: 'site-1/',
        mqttShareGroup: 'lockcloud',
        mqttMaxConnections: 10_000,
        mqttMaxConnectionsPerAddress: 500,
        simulator: false,
        shutdownGraceMs: 5000,
        metricsPort: undefined,
        metricsHost: '127.0.0.1',
      },
    );
  });

  it('reads every setting from flags', () => {
    const config = loadConfig({}, [
      '--port',
      '0',
      '--host',
      '::1',
      '--data',
      'dir',
      '--seed',
      'seed.json',
      '--production',
      '--no-rate-limit',
      '--command-timeout-ms',
      '100',
      '--low-battery',
      '0',
      '--log-level',
      'silent',
      '--mqtt-url',
      'mqtts://broker:8883',
      '--mqtt-host',
      '::1',
      '--mqtt-port',
      '0',
      '--mqtt-prefix',
      't/',
      '--no-simulator',
      '--shutdown-grace-ms',
      '0',
      '--event-stream-heartbeat-ms',
      '10',
      '--event-streams-per-account',
      '1',
      '--event-stream-buffer-bytes',
      '1',
    ]);
    assert.deepEqual(
      { ...config },
      {
        port: 0,
        host: '::1',
        dataDir: 'dir',
        databaseUrl: undefined,
        databasePoolSize: 10,
        databaseReadCache: true,
        seedFile: 'seed.json',
        mode: 'production',
        rateLimit: false,
        commandTimeoutMs: 100,
        lowBatteryThreshold: 0,
        offlineGraceSeconds: 60,
        eventRetentionDays: 90,
        eventStreamHeartbeatMs: 10,
        eventStreamsPerAccount: 1,
        eventStreamBufferBytes: 1,
        webhookEndpointDisableDays: 3,
        logLevel: 'silent',
        redisUrl: undefined,
        redisPrefix: 'lockcloud:',
        rateLimitsFile: undefined,
        trustProxy: [],
        publicUrl: undefined,
        webhookTimeoutMs: 5000,
        webhookAllow: [],
        secretKey: undefined,
        smtpUrl: undefined,
        mailFrom: 'lockcloud <no-reply@lockcloud.invalid>',
        mqttUrl: 'mqtts://broker:8883',
        mqttHost: '::1',
        mqttPort: 0,
        mqttPrefix: 't/',
        mqttShareGroup: 'lockcloud',
        mqttMaxConnections: 10_000,
        mqttMaxConnectionsPerAddress: 500,
        simulator: false,
        shutdownGraceMs: 0,
        metricsPort: undefined,
        metricsHost: '127.0.0.1',
      },
    );
  });

  it('lets flags beat the environment', () => {
    const env = {
      LOCKCLOUD_PORT: '9000',
      LOCKCLOUD_HOST: 'env-host',
      LOCKCLOUD_DATA: 'env-data',
      LOCKCLOUD_SEED: 'env-seed.json',
      LOCKCLOUD_MODE: 'production',
      LOCKCLOUD_RATE_LIMIT: 'on',
      LOCKCLOUD_COMMAND_TIMEOUT_MS: '2000',
      LOCKCLOUD_LOW_BATTERY_THRESHOLD: '20',
      LOG_LEVEL: 'warn',
      MQTT_URL: 'mqtt://env-broker:1883',
      LOCKCLOUD_MQTT_PREFIX: 'env/',
    };
    const config = loadConfig(env, [
      '--port=9100',
      '--host',
      'flag-host',
      '--data',
      'flag-data',
      '--seed',
      'flag-seed.json',
      '--sandbox',
      '--no-rate-limit',
      '--command-timeout-ms',
      '3000',
      '--low-battery',
      '5',
      '--log-level',
      'debug',
      '--mqtt-url',
      'mqtt://flag-broker:1883',
      '--mqtt-prefix',
      'flag/',
    ]);
    assert.deepEqual(
      { ...config },
      {
        port: 9100,
        host: 'flag-host',
        dataDir: 'flag-data',
        databaseUrl: undefined,
        databasePoolSize: 10,
        databaseReadCache: true,
        seedFile: 'flag-seed.json',
        mode: 'sandbox',
        rateLimit: false,
        commandTimeoutMs: 3000,
        lowBatteryThreshold: 5,
        offlineGraceSeconds: 60,
        eventRetentionDays: 90,
        eventStreamHeartbeatMs: 15000,
        eventStreamsPerAccount: 20,
        eventStreamBufferBytes: 1048576,
        webhookEndpointDisableDays: 3,
        logLevel: 'debug',
        redisUrl: undefined,
        redisPrefix: 'lockcloud:',
        rateLimitsFile: undefined,
        trustProxy: [],
        publicUrl: undefined,
        webhookTimeoutMs: 5000,
        webhookAllow: [],
        secretKey: undefined,
        smtpUrl: undefined,
        mailFrom: 'lockcloud <no-reply@lockcloud.invalid>',
        mqttUrl: 'mqtt://flag-broker:1883',
        mqttHost: '127.0.0.1',
        mqttPort: 1884,
        mqttPrefix: 'flag/',
        mqttShareGroup: 'lockcloud',
        mqttMaxConnections: 10_000,
        mqttMaxConnectionsPerAddress: 500,
        simulator: true,
        shutdownGraceMs: 20_000,
        metricsPort: undefined,
        metricsHost: '127.0.0.1',
      },
    );
  });

  it('does not let a bad environment value spoil a setting a flag gives', () => {
    assert.equal(
      loadConfig({ LOCKCLOUD_PORT: 'nope', LOCKCLOUD_MODE: 'staging' }, ['--port', '1', '--production']).port,
      1,
    );
  });

  it('reads the public URL without its trailing slash, and refuses one that is not http(s)', () => {
    assert.equal(
      loadConfig({}, ['--public-url', 'http://127.0.0.1:8080']).publicUrl,
      'http://127.0.0.1:8080',
    );
    assert.equal(
      loadConfig({}, ['--public-url', 'https://x.example/locks//']).publicUrl,
      'https://x.example/locks',
    );
    assert.throws(() => loadConfig({}, ['--public-url', 'ftp://x.example']), ConfigError);
    assert.throws(() => loadConfig({}, ['--public-url', 'locks.example.com']), ConfigError);
  });

  it('treats an empty environment variable as unset', () => {
    const empty = {
      LOCKCLOUD_PORT: '',
      LOCKCLOUD_HOST: '',
      LOCKCLOUD_DATA: '',
      LOCKCLOUD_SEED: '',
      LOCKCLOUD_MODE: '',
      LOCKCLOUD_RATE_LIMIT: '',
      LOCKCLOUD_COMMAND_TIMEOUT_MS: '',
      LOCKCLOUD_LOW_BATTERY_THRESHOLD: '',
      LOG_LEVEL: '',
    };
    assert.deepEqual({ ...loadConfig(empty, []) }, DEFAULTS);
  });

  it('accepts the usual spellings of on and off for rate limiting', () => {
    for (const off of ['off', 'false', '0'])
      assert.equal(loadConfig({ LOCKCLOUD_RATE_LIMIT: off }, []).rateLimit, false);
    for (const on of ['on', 'true', '1'])
      assert.equal(loadConfig({ LOCKCLOUD_RATE_LIMIT: on }, []).rateLimit, true);
  });

  it('refuses bad device-link settings, naming each, and never echoes a broker password', () => {
    const found = problems({
      MQTT_URL: 'http://cloud:secret-pw@broker',
      LOCKCLOUD_MQTT_HOST: ' ',
      LOCKCLOUD_MQTT_PORT: '65536',
      LOCKCLOUD_MQTT_PREFIX: 'no-slash',
      LOCKCLOUD_SIMULATOR: 'maybe',
    });
    for (const setting of ['mqttUrl', 'mqttHost', 'mqttPort', 'mqttPrefix', 'simulator']) {
      assert.ok(
        found.some((p) => p.startsWith(`${setting}:`)),
        `${setting} missing from ${JSON.stringify(found)}`,
      );
    }
    assert.ok(!JSON.stringify(found).includes('secret-pw'));
    assert.ok(problems({}, ['--mqtt-prefix', 'a/#/']).some((p) => p.startsWith('mqttPrefix:')));
  });

  it('reports every bad setting at once, each naming its setting', () => {
    const found = problems({
      LOCKCLOUD_PORT: '70000',
      LOCKCLOUD_MODE: 'staging',
      LOCKCLOUD_RATE_LIMIT: 'sometimes',
      LOCKCLOUD_COMMAND_TIMEOUT_MS: '50',
      LOCKCLOUD_LOW_BATTERY_THRESHOLD: '101',
      LOG_LEVEL: 'loud',
    });
    for (const setting of [
      'port',
      'mode',
      'rateLimit',
      'commandTimeoutMs',
      'lowBatteryThreshold',
      'logLevel',
    ]) {
      assert.ok(
        found.some((p) => p.startsWith(`${setting}:`)),
        `${setting} missing from ${JSON.stringify(found)}`,
      );
    }
    assert.equal(found.length, 6);
  });

  it('reports bad flags together with bad environment values', () => {
    const found = problems({ LOG_LEVEL: 'loud' }, ['--port', 'abc', '--host', ' ', '--data', '']);
    for (const setting of ['port', 'host', 'dataDir', 'logLevel']) {
      assert.ok(
        found.some((p) => p.startsWith(`${setting}:`)),
        `${setting} missing from ${JSON.stringify(found)}`,
      );
    }
  });

  it('refuses numbers that are not whole, negative, signed, or out of range', () => {
    for (const port of ['-1', '1.5', '+80', '0x50', '1e3', '65536', 'eighty', '']) {
      const found = problems({}, [`--port=${port}`]);
      assert.ok(
        found.some((p) => p.startsWith('port:')),
        `port ${JSON.stringify(port)}: ${JSON.stringify(found)}`,
      );
    }
    assert.equal(loadConfig({}, ['--port', '65535']).port, 65535);
    assert.equal(loadConfig({}, ['--low-battery', '100']).lowBatteryThreshold, 100);
    assert.equal(loadConfig({}, ['--command-timeout-ms', '600000']).commandTimeoutMs, 600_000);
    assert.ok(
      problems({}, ['--command-timeout-ms', '600001']).some((p) => p.startsWith('commandTimeoutMs:')),
    );
    assert.equal(loadConfig({}, ['--shutdown-grace-ms', '600000']).shutdownGraceMs, 600_000);
    assert.ok(problems({ LOCKCLOUD_SHUTDOWN_GRACE_MS: '-1' }).some((p) => p.startsWith('shutdownGraceMs:')));
  });

  it('refuses --sandbox with --production', () => {
    const found = problems({}, ['--sandbox', '--production']);
    assert.ok(
      found.some((p) => p.startsWith('mode:') && p.includes('--sandbox') && p.includes('--production')),
    );
  });

  it('refuses unknown flags and stray arguments, and still reports the other problems', () => {
    const found = problems({ LOG_LEVEL: 'loud' }, ['--colour', 'red']);
    assert.ok(
      found.some((p) => p.includes('--colour')),
      JSON.stringify(found),
    );
    assert.ok(
      found.some((p) => p.startsWith('logLevel:')),
      JSON.stringify(found),
    );
    assert.ok(problems({}, ['serve-now']).length >= 1);
    assert.ok(problems({}, ['--port']).length >= 1, 'a flag without its value');
  });

  it('returns a frozen object', () => {
    const config = loadConfig({}, []);
    assert.equal(Object.isFrozen(config), true);
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
    assert.equal(config.port, 8080);
  });

  it('describeConfig shows every setting, with no seed as null', () => {
    const described = describeConfig(loadConfig({}, []));
    assert.deepEqual(Object.keys(described).sort(), Object.keys(DEFAULTS).sort());
    assert.equal(described.seedFile, null);
    const withBroker = describeConfig(loadConfig({ MQTT_URL: 'mqtt://cloud:hunter2@broker:1883' }, []));
    assert.equal(withBroker.mqttUrl, 'mqtt://***@broker:1883', 'the broker password is not logged');
    const key = Buffer.alloc(32, 9).toString('base64');
    const withKey = describeConfig(loadConfig({ LOCKCLOUD_SECRET_KEY: key }, []));
    assert.equal(withKey.secretKey, '***', 'the server key is not logged');
    assert.ok(!JSON.stringify(withKey).includes(key));
    assert.equal(described.secretKey, null);
  });
});
