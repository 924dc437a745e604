/** validateSeed and parseSeed: every problem in a seed is named by its field. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSeed, SeedError, validateSeed } from '../../../src/app/seed/validate.ts';

describe('seed validation (validateSeed, parseSeed)', () => {
  const ok = (): Record<string, unknown> => ({
    accounts: [{ email: 'a@example.com' }, { email: 'b@example.com' }],
    api_keys: [{ account: 'a@example.com', key: 'key-of-a-0001' }],
    locks: [{ device_id: '00000000-0000-0000-0000-000000000001', owner: 'a@example.com' }],
    webhooks: [{ account: 'a@example.com', url: 'https://example.com/hook' }],
  });
  const lockWith = (fields: Record<string, unknown>): Record<string, unknown> => ({
    ...ok(),
    locks: [{ device_id: '00000000-0000-0000-0000-000000000001', owner: 'a@example.com', ...fields }],
  });

  /** The problems validateSeed reports for `input`; fails if it accepts it. */
  const problems = (input: unknown): readonly string[] => {
    try {
      validateSeed(input);
    } catch (error) {
      assert.ok(error instanceof SeedError, String(error));
      assert.ok(error.message.includes(error.problems[0] ?? '<none>'), 'the message lists the problems');
      return error.problems;
    }
    assert.fail(`accepted ${JSON.stringify(input)}`);
  };
  const assertProblem = (input: unknown, field: string, ...words: string[]): void => {
    const found = problems(input);
    const hit = found.find((p) => p.startsWith(`${field}:`) && words.every((w) => p.includes(w)));
    assert.ok(hit, `no problem for ${field} ${words.join(' ')} in ${JSON.stringify(found)}`);
  };

  it('accepts a good seed and the example of docs/sandbox.md, and returns it', () => {
    const seed = ok();
    assert.equal(validateSeed(seed), seed);
    assert.deepEqual(validateSeed({}), {});
    const example = `{
      "accounts": [
        {"email": "abc@example.com", "password": "super-strong-password", "verified": true},
        {"email": "social@example.com", "password": null, "verified": true},
        {"email": "new@example.com", "password": "pw-123456", "verified": false}
      ],
      "api_keys": [{"account": "abc@example.com", "key": "test-api-key"}],
      "locks": [
        {"device_id": "00000000-0000-0000-0000-000000000001", "serial": "ABC1234567",
         "nickname": "Front door", "owner": "abc@example.com", "shared_with": ["social@example.com"],
         "locked": true, "battery": 100, "responsive": true, "integration": true,
         "access_point": true, "latency_ms": 0}
      ],
      "webhooks": [{"account": "abc@example.com", "method": "POST",
                    "url": "http://127.0.0.1:9999/hook/{device_id}/{state}"}]
    }`;
    assert.equal(parseSeed(example).locks?.[0]?.serial, 'ABC1234567');
  });

  it('names a field with a value out of range: seed.locks[0].battery', () => {
    assertProblem(lockWith({ battery: 101 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: -1 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: 50.5 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: '100' }), 'seed.locks[0].battery');
    assertProblem(lockWith({ latency_ms: -5 }), 'seed.locks[0].latency_ms');
    assertProblem(lockWith({ locked: 'yes' }), 'seed.locks[0].locked');
  });

  it('names an unknown field, at the top and inside an entry', () => {
    assertProblem({ ...ok(), devices: [] }, 'seed.devices', 'not a known field');
    assertProblem(lockWith({ colour: 'red' }), 'seed.locks[0].colour', 'not a known field');
    assertProblem(
      { ...ok(), accounts: [{ email: 'a@example.com', admin: true }] },
      'seed.accounts[0].admin',
      'not a known field',
    );
  });

  it('names a missing required field', () => {
    const found = problems({ ...ok(), locks: [{ device_id: '00000000-0000-0000-0000-000000000001' }] });
    assert.ok(
      found.some((p) => p.startsWith('seed.locks[0]') && p.includes('owner')),
      JSON.stringify(found),
    );
    const noEmail = problems({ accounts: [{ password: 'x-password' }] });
    assert.ok(
      noEmail.some((p) => p.startsWith('seed.accounts[0]') && p.includes('email')),
      JSON.stringify(noEmail),
    );
  });

  it('names an owner, a share, a key or a webhook whose account is not in seed.accounts', () => {
    assertProblem(lockWith({ owner: 'ghost@example.com' }), 'seed.locks[0].owner', 'ghost@example.com');
    assertProblem(
      lockWith({ shared_with: ['ghost@example.com'] }),
      'seed.locks[0].shared_with[0]',
      'ghost@example.com',
    );
    assertProblem(
      { ...ok(), api_keys: [{ account: 'ghost@example.com', key: 'some-key-123' }] },
      'seed.api_keys[0].account',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'ghost@example.com', url: 'https://x.example/h' }] },
      'seed.webhooks[0].account',
    );
  });

  it('names a duplicate device_id, also when it differs only in case', () => {
    const id = '0000000a-0000-0000-0000-000000000001';
    const dup = {
      ...ok(),
      locks: [
        { device_id: id, owner: 'a@example.com' },
        { device_id: id, owner: 'b@example.com' },
      ],
    };
    assertProblem(dup, 'seed.locks[1].device_id', 'twice');
    const cased = {
      ...ok(),
      locks: [
        { device_id: id, owner: 'a@example.com' },
        { device_id: id.toUpperCase(), owner: 'b@example.com' },
      ],
    };
    assertProblem(cased, 'seed.locks[1].device_id', 'twice');
  });

  it('names a duplicate e-mail (whatever its case), a duplicate key and a second webhook for one account', () => {
    assertProblem(
      { accounts: [{ email: 'a@example.com' }, { email: 'A@Example.com' }] },
      'seed.accounts[1].email',
      'twice',
    );
    assertProblem(
      {
        ...ok(),
        api_keys: [
          { account: 'a@example.com', key: 'same-key-0001' },
          { account: 'b@example.com', key: 'same-key-0001' },
        ],
      },
      'seed.api_keys[1].key',
    );
    assertProblem(
      {
        ...ok(),
        webhooks: [
          { account: 'a@example.com', url: 'https://x.example/1' },
          { account: 'A@example.com', url: 'https://x.example/2' },
        ],
      },
      'seed.webhooks[1].account',
    );
  });

  it('refuses sharing a lock with its owner', () => {
    assertProblem(lockWith({ shared_with: ['A@example.com'] }), 'seed.locks[0].shared_with[0]', 'owner');
  });

  it('names a device_id that is not a UUID, and other malformed values', () => {
    assertProblem(lockWith({ device_id: 'not-a-uuid' }), 'seed.locks[0].device_id');
    assertProblem(lockWith({ device_id: '00000000-0000-0000-0000-00000000000' }), 'seed.locks[0].device_id');
    assertProblem({ accounts: [{ email: 'not-an-email' }] }, 'seed.accounts[0].email');
    assertProblem(
      { ...ok(), api_keys: [{ account: 'a@example.com', key: 'short' }] },
      'seed.api_keys[0].key',
    );
    assertProblem(
      { ...ok(), api_keys: [{ account: 'a@example.com', key: 'has a space' }] },
      'seed.api_keys[0].key',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'a@example.com', url: 'ftp://x.example/h' }] },
      'seed.webhooks[0].url',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'a@example.com', url: 'https://x.example/h', method: 'PUT' }] },
      'seed.webhooks[0].method',
    );
  });

  it('reports every schema problem at once', () => {
    const found = problems({
      accounts: [{ email: 'a@example.com', password: 5 }],
      locks: [{ device_id: 'x', owner: 'a@example.com', battery: 200 }],
      extra: true,
    });
    for (const field of [
      'seed.accounts[0].password',
      'seed.locks[0].device_id',
      'seed.locks[0].battery',
      'seed.extra',
    ]) {
      assert.ok(
        found.some((p) => p.startsWith(`${field}:`)),
        `${field} missing from ${JSON.stringify(found)}`,
      );
    }
  });

  it('refuses a seed that is not an object, and parseSeed refuses text that is not JSON', () => {
    for (const input of [null, [], 'seed', 42]) assertProblem(input, 'seed');
    assert.throws(
      () => parseSeed('{"accounts": ['),
      (error: unknown) => error instanceof SeedError && /^seed: not valid JSON/.test(error.problems[0] ?? ''),
    );
    assert.throws(
      () =>
        parseSeed('{"locks":[{"device_id":"00000000-0000-0000-0000-000000000001","owner":"x@example.com"}]}'),
      (error: unknown) => error instanceof SeedError && error.message.includes('seed.locks[0].owner'),
    );
  });
});
