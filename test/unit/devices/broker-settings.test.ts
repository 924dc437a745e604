import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';

function problems(env: Record<string, string>, argv: string[] = []): readonly string[] {
  try {
    loadConfig(env, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('accepted');
}

describe('the embedded broker’s connection limits (settings)', () => {
  it('default to 10,000 in all and 500 per client address', () => {
    const config = loadConfig({}, []);
    assert.equal(config.mqttMaxConnections, 10_000);
    assert.equal(config.mqttMaxConnectionsPerAddress, 500);
  });

  it('come from flags, which beat the environment', () => {
    const env = { LOCKCLOUD_MQTT_MAX_CONNECTIONS: '300', LOCKCLOUD_MQTT_MAX_CONNECTIONS_PER_ADDRESS: '30' };
    assert.deepEqual(
      [loadConfig(env, []).mqttMaxConnections, loadConfig(env, []).mqttMaxConnectionsPerAddress],
      [300, 30],
    );
    const config = loadConfig(env, [
      '--mqtt-max-connections',
      '5',
      '--mqtt-max-connections-per-address',
      '2',
    ]);
    assert.deepEqual([config.mqttMaxConnections, config.mqttMaxConnectionsPerAddress], [5, 2]);
  });

  it('refuses 0, negative, fractional and non-numbers, naming the setting', () => {
    for (const bad of ['0', '-1', '2.5', 'many', '10000000']) {
      assert.ok(
        problems({}, [`--mqtt-max-connections=${bad}`]).some((p) => p.startsWith('mqttMaxConnections:')),
        bad,
      );
      assert.ok(
        problems({ LOCKCLOUD_MQTT_MAX_CONNECTIONS_PER_ADDRESS: bad }).some((p) =>
          p.startsWith('mqttMaxConnectionsPerAddress:'),
        ),
        bad,
      );
    }
  });
});
