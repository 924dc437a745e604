/**
 * Where a webhook or its policy comes from outside the API: the seed file's webhooks get the API's
 * URL rules, and --webhook-allow takes only real CIDR ranges (a bad one is a configuration error
 * named at start, not a crash of the address policy).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressPolicy } from '../../../src/adapters/webhooks/address-policy.ts';
import { SeedError, validateSeed } from '../../../src/app/seed/validate.ts';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';

const seedWith = (hook: Record<string, unknown>) => ({
  accounts: [{ email: 'ann@example.com' }],
  webhooks: [{ account: 'ann@example.com', ...hook }],
});

function seedProblems(input: unknown): string[] {
  try {
    validateSeed(input);
    return [];
  } catch (error) {
    assert.ok(error instanceof SeedError, String(error));
    return [...error.problems];
  }
}

describe('seed webhooks', () => {
  it('takes what the API takes: http(s), placeholders, method, retries, a secret', () => {
    for (const hook of [
      { url: 'https://hooks.example.com/{device_id}/{state}' },
      { url: 'http://127.0.0.1:9000/hook', method: 'GET', retries: true },
      { url: 'https://hooks.example.com/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      { url: `https://hooks.example.com/${'a'.repeat(256 - 'https://hooks.example.com/'.length)}` },
    ]) {
      assert.deepEqual(seedProblems(seedWith(hook)), [], JSON.stringify(hook));
    }
  });

  it('refuses credentials in the URL and URLs that do not parse, naming the field', () => {
    assert.deepEqual(seedProblems(seedWith({ url: 'https://user:pass@hooks.example.com/' })), [
      'seed.webhooks[0].url: must not carry credentials',
    ]);
    assert.deepEqual(seedProblems(seedWith({ url: 'https://user@hooks.example.com/' })), [
      'seed.webhooks[0].url: must not carry credentials',
    ]);
    assert.deepEqual(seedProblems(seedWith({ url: 'http://[zz]/' })), ['seed.webhooks[0].url: is not a URL']);
  });

  it('refuses a URL over 256 characters, another scheme, or another method', () => {
    const long = `https://hooks.example.com/${'a'.repeat(257 - 'https://hooks.example.com/'.length)}`;
    for (const hook of [
      { url: long },
      { url: 'ftp://hooks.example.com/' },
      { url: 'https://hooks.example.com/', method: 'PUT' },
    ]) {
      const problems = seedProblems(seedWith(hook));
      assert.equal(problems.length > 0, true, JSON.stringify(hook));
      for (const p of problems) assert.match(p, /^seed\.webhooks\[0\]\.(url|method)/);
    }
  });
});

describe('--webhook-allow', () => {
  it('takes IPv4 and IPv6 CIDR ranges, comma-separated, from the flag or the environment', () => {
    assert.deepEqual(loadConfig({}, ['--webhook-allow', '10.0.0.0/8, fd00::/8']).webhookAllow, [
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    assert.deepEqual(loadConfig({ LOCKCLOUD_WEBHOOK_ALLOW: '127.0.0.0/8' }, []).webhookAllow, [
      '127.0.0.0/8',
    ]);
    assert.deepEqual(loadConfig({}, []).webhookAllow, []);
    for (const range of ['0.0.0.0/0', '10.1.2.3/32', '::/0', '::1/128']) {
      const config = loadConfig({}, ['--webhook-allow', range]);
      assert.doesNotThrow(() => addressPolicy({ allowLoopback: false, allow: config.webhookAllow }), range);
    }
  });

  it('refuses at load what is not a CIDR range, naming it, so the policy never sees it', () => {
    for (const range of [
      '10.0.0.0',
      '10.0.0.0/33',
      '10.0.0.0/99',
      '::1/129',
      '::1/200',
      '1.2.3/8',
      '999.0.0.0/8',
      ':::/8',
      'localhost/8',
      '10.0.0.0/8/9',
      '10.0.0.0/',
      '/8',
    ]) {
      assert.throws(
        () => loadConfig({}, ['--webhook-allow', range]),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.some((p) => p === `webhookAllow: "${range}" is not a CIDR range`),
        range,
      );
    }
  });
});
