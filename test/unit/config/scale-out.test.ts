/** The settings of a deployment of several processes: Redis, proxies, the broker's share group. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, describeConfig, loadConfig } from '../../../src/config/config.ts';

function problems(env: Record<string, string>, argv: string[] = []): readonly string[] {
  try {
    loadConfig(env, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('loadConfig accepted it');
}

describe('loadConfig: rate-limit backends and proxies', () => {
  it('reads the Redis URL and prefix, the limits file and the trusted proxies', () => {
    const config = loadConfig(
      { REDIS_URL: 'redis://127.0.0.1:6379/0', LOCKCLOUD_TRUST_PROXY: 'loopback, 10.0.0.0/8' },
      ['--redis-prefix', 'x:', '--rate-limits', 'limits.json'],
    );
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379/0');
    assert.equal(config.redisPrefix, 'x:');
    assert.equal(config.rateLimitsFile, 'limits.json');
    assert.deepEqual(config.trustProxy, ['loopback', '10.0.0.0/8']);
  });

  it('refuses a Redis URL of another scheme and a proxy that is not an address', () => {
    const found = problems({ REDIS_URL: 'http://x' }, ['--trust-proxy', 'evil.example']);
    assert.equal(found.length, 2);
    assert.match(found[0] ?? '', /^redisUrl:/);
    assert.match(found[1] ?? '', /^trustProxy:/);
  });

  it('hides a Redis password in the summary', () => {
    const config = loadConfig({ REDIS_URL: 'redis://user:secret@db.example:6379' }, []);
    assert.equal(describeConfig(config).redisUrl, 'redis://***@db.example:6379');
  });

  it('takes the shared-subscription group from the flag or environment, and checks it', () => {
    assert.equal(loadConfig({ LOCKCLOUD_MQTT_SHARE_GROUP: 'site_1' }, []).mqttShareGroup, 'site_1');
    assert.equal(loadConfig({}, ['--mqtt-share-group', 'blue-2']).mqttShareGroup, 'blue-2');
    for (const bad of ['a/b', 'a+', '#', 'x'.repeat(65)])
      assert.ok(problems({}, ['--mqtt-share-group', bad]).some((p) => p.startsWith('mqttShareGroup:')));
  });
});
