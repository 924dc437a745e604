/**
 * The server's logger scrubs every secret setting's value from every line: a driver's error may echo
 * its URL (Node's URL errors carry the input; some clients put the URL in their messages).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { openLogger } from '../../../src/open-logger.ts';

const PASSWORD = 'hunter2-Secret';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, lines };
}

describe('openLogger', () => {
  it('takes the secret settings out of every line, whatever carries them', () => {
    const env = {
      REDIS_URL: `redis://admin:${PASSWORD}@cache:6379`,
      DATABASE_URL: `postgres://lc:${encodeURIComponent(`${PASSWORD}/"x`)}@db/lc`,
      LOCKCLOUD_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
    };
    const { stream, lines } = capture();
    const logger = openLogger(loadConfig(env, ['--log-level', 'debug']), stream);
    let urlError: unknown;
    try {
      new URL(`${env.REDIS_URL}:bad-port`);
    } catch (error) {
      urlError = error;
    }
    logger.error({ err: urlError }, 'cannot parse');
    logger.warn({ err: new Error(`connect to ${env.REDIS_URL} failed`) }, 'redis');
    logger.error({ detail: `password authentication failed: "${PASSWORD}/"x"` }, 'database');
    logger.info({ key: env.LOCKCLOUD_SECRET_KEY }, 'key');
    assert.equal(lines.length, 4);
    const text = lines.join('');
    assert.ok(!text.includes(PASSWORD), text);
    assert.ok(!text.includes(env.LOCKCLOUD_SECRET_KEY), text);
    assert.match(text, /redis:\/\/\*\*\*@cache:6379/);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
  });

  it('leaves lines alone when no setting holds a secret', () => {
    const { stream, lines } = capture();
    openLogger(loadConfig({}, []), stream).info({ url: 'redis://cache:6379' }, 'plain');
    assert.match(lines[0] ?? '', /"url":"redis:\/\/cache:6379"/);
  });
});
