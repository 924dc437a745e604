/** The metrics listener's settings: off unless a port is given, on loopback unless told otherwise. */
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
  assert.fail('loadConfig accepted it');
}

describe('loadConfig: metrics', () => {
  it('serves none by default, and would listen on 127.0.0.1', () => {
    const config = loadConfig({}, []);
    assert.equal(config.metricsPort, undefined);
    assert.equal(config.metricsHost, '127.0.0.1');
  });

  it('takes the port and host from the flags or the environment, the flags winning', () => {
    const env = { LOCKCLOUD_METRICS_PORT: '9464', LOCKCLOUD_METRICS_HOST: '10.0.0.5' };
    assert.equal(loadConfig(env, []).metricsPort, 9464);
    assert.equal(loadConfig(env, []).metricsHost, '10.0.0.5');
    const config = loadConfig(env, ['--metrics-port', '0', '--metrics-host', '::1']);
    assert.equal(config.metricsPort, 0);
    assert.equal(config.metricsHost, '::1');
    assert.equal(loadConfig({ LOCKCLOUD_METRICS_PORT: '' }, []).metricsPort, undefined, 'empty is unset');
  });

  it('refuses a bad port, an empty host, and the API port itself', () => {
    assert.match(problems({}, ['--metrics-port', '65536'])[0] ?? '', /^metricsPort: /);
    assert.match(problems({}, ['--metrics-host', ' '])[0] ?? '', /^metricsHost: must not be empty/);
    assert.deepEqual(problems({ LOCKCLOUD_PORT: '9000' }, ['--metrics-port', '9000']), [
      "metricsPort: 9000 is the API's port: metrics are never served there",
    ]);
    assert.equal(loadConfig({}, ['--port', '0', '--metrics-port', '0']).metricsPort, 0, 'two free ports');
  });
});
