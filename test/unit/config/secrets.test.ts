/**
 * Issue 17 point 11: a setting that can hold a secret never shows it in a message. Each secret
 * setting is given, by variable and by flag, a password in every bad form a person might type, and
 * the configuration's errors must name the setting without the password; its start-up summary too.
 * (The same settings' good but unreachable forms: test/process/secret-settings.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigError,
  configScrubber,
  describeConfig,
  loadConfig,
  SETTINGS,
} from '../../../src/config/config.ts';

const PASSWORD = 's3cret-Pw';
const SECRET_URLS = ['databaseUrl', 'redisUrl', 'smtpUrl', 'mqttUrl'] as const;

/** Bad values carrying the password: wrong scheme, no scheme, no "//", a bad port, no host, in the query. */
const BAD_FORMS = [
  `http://admin:${PASSWORD}@host`,
  `admin:${PASSWORD}@host`,
  `redis:admin:${PASSWORD}@host`,
  `SCHEME://admin:${PASSWORD}@host:99999`,
  `postgres://admin:${PASSWORD}@`,
  `http://host/x?password=${PASSWORD}`,
  `http://admin:${encodeURIComponent(`${PASSWORD}/?#`)}@host`,
];

function refused(env: Record<string, string>, argv: string[] = []): ConfigError {
  try {
    loadConfig(env, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify({ env, argv })}`);
}

describe('secret settings in configuration errors', () => {
  it('a bad REDIS_URL is refused without its password (it was echoed in clear)', () => {
    const error = refused({ REDIS_URL: `http://admin:${PASSWORD}@host` });
    assert.deepEqual(error.problems, ['redisUrl: "http://***@host" is not a redis:// or rediss:// URL']);
    assert.ok(!error.message.includes(PASSWORD));
  });

  for (const name of SECRET_URLS) {
    const { env, flag } = SETTINGS[name];
    it(`${name}: every bad form, by ${env} and by ${flag}, is named and never shows the password`, () => {
      for (const form of BAD_FORMS) {
        for (const error of [
          refused({ [env]: form }),
          refused({}, [flag, form]),
          refused({}, [`${flag}=${form}`]),
        ]) {
          assert.ok(
            error.problems.some((p) => p.startsWith(`${name}:`)),
            `${form}: ${JSON.stringify(error.problems)}`,
          );
          assert.ok(!error.message.includes(PASSWORD), `${form}: ${error.message}`);
          assert.ok(!error.message.includes('s3cret'), `${form}: ${error.message}`);
        }
      }
    });
  }

  it('a bad LOCKCLOUD_SECRET_KEY is named, never shown', () => {
    const key = `${PASSWORD}-not-base64-32`;
    const error = refused({ LOCKCLOUD_SECRET_KEY: key });
    assert.ok(error.problems.some((p) => p.startsWith('secretKey:') && p.includes('LOCKCLOUD_SECRET_KEY')));
    assert.ok(!error.message.includes(PASSWORD));
  });

  it("a stray argument that is a URL with credentials is refused without them (parseArgs's message)", () => {
    const error = refused({}, ['--no-rate-limit', `redis://admin:${PASSWORD}@host:6379`]);
    assert.ok(!error.message.includes(PASSWORD), error.message);
    assert.ok(error.message.includes('redis://***@host:6379'), error.message);
  });

  it('other bad settings reported with them keep their own values', () => {
    const error = refused({ REDIS_URL: `http://admin:${PASSWORD}@host`, LOCKCLOUD_PORT: 'eighty' });
    assert.ok(error.problems.includes('port: "eighty" is not a whole number from 0 to 65535'), error.message);
  });
});

describe('secret settings at start', () => {
  const good = {
    DATABASE_URL: `postgres://lockcloud:${PASSWORD}@db:5432/lc?password=${PASSWORD}`,
    REDIS_URL: `rediss://default:${PASSWORD}@cache:6380/0`,
    SMTP_URL: `smtps://mailer:${PASSWORD}@mail:465`,
    MQTT_URL: `mqtts://cloud-1:${PASSWORD}@broker:8883`,
    LOCKCLOUD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  };

  it('describeConfig shows where each points, not how it logs in, and the key as ***', () => {
    const described = describeConfig(loadConfig(good, []));
    assert.equal(described.databaseUrl, 'postgres://***@db:5432/lc?password=***');
    assert.equal(described.redisUrl, 'rediss://***@cache:6380/0');
    assert.equal(described.smtpUrl, 'smtps://***@mail:465');
    assert.equal(described.mqttUrl, 'mqtts://***@broker:8883');
    assert.equal(described.secretKey, '***');
    const text = JSON.stringify(described);
    assert.ok(!text.includes(PASSWORD));
    assert.ok(!text.includes(good.LOCKCLOUD_SECRET_KEY));
  });

  it("the config's scrubber takes every secret value out of free text, as a driver might echo it", () => {
    const config = loadConfig(good, []);
    const scrub = configScrubber(config);
    assert.ok(scrub);
    const echoes = [
      `connect failed: ${good.REDIS_URL}`,
      `password authentication failed ("${PASSWORD}")`,
      JSON.stringify({ err: { message: `bad url ${good.MQTT_URL}`, input: good.SMTP_URL } }),
      `key ${good.LOCKCLOUD_SECRET_KEY}`,
    ];
    for (const echo of echoes) {
      const scrubbed = scrub(echo);
      assert.ok(!scrubbed.includes(PASSWORD), scrubbed);
      assert.ok(!scrubbed.includes(good.LOCKCLOUD_SECRET_KEY), scrubbed);
    }
    assert.equal(scrub(`connect failed: ${good.REDIS_URL}`), 'connect failed: rediss://***@cache:6380/0');
    assert.equal(configScrubber(loadConfig({}, [])), undefined, 'nothing to scrub: no hook at all');
  });
});
