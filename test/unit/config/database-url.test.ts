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

describe('loadConfig: the PostgreSQL store', () => {
  it('has none by default: the store is SQLite in the data directory', () => {
    const config = loadConfig({}, []);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.databasePoolSize, 10);
  });

  it('reads DATABASE_URL and the pool size, the flags winning', () => {
    const env = { DATABASE_URL: 'postgres://a@db/one', LOCKCLOUD_DATABASE_POOL_SIZE: '4' };
    assert.equal(loadConfig(env, []).databaseUrl, 'postgres://a@db/one');
    assert.equal(loadConfig(env, []).databasePoolSize, 4);
    const flags = ['--database-url', 'postgresql://b@db:5433/two', '--database-pool-size', '25'];
    assert.equal(loadConfig(env, flags).databaseUrl, 'postgresql://b@db:5433/two');
    assert.equal(loadConfig(env, flags).databasePoolSize, 25);
    assert.equal(loadConfig({ DATABASE_URL: '' }, []).databaseUrl, undefined, 'empty is unset');
  });

  it('refuses what is not a postgres:// or postgresql:// URL, never echoing its password', () => {
    for (const url of ['mysql://u:pw@db/x', 'postgres:/db', 'db/x', 'postgres:///x']) {
      const found = problems({ DATABASE_URL: url });
      assert.equal(found.length, 1, url);
      assert.match(found[0] ?? '', /^databaseUrl: .* is not a postgres:\/\/ or postgresql:\/\/ URL$/);
      assert.doesNotMatch(found[0] ?? '', /pw/);
    }
    assert.match(problems({}, ['--database-pool-size', '0'])[0] ?? '', /^databasePoolSize:/);
  });

  it('describeConfig shows where the database is, not how it logs in', () => {
    const described = describeConfig(
      loadConfig({ DATABASE_URL: 'postgres://lockcloud:hunter2@db:5432/lc?sslmode=require&password=x2' }, []),
    );
    assert.equal(described.databaseUrl, 'postgres://***@db:5432/lc?sslmode=require&password=***');
    assert.equal(describeConfig(loadConfig({}, [])).databaseUrl, null);
  });
});
