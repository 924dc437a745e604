import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  checkAppInput,
  checkConsentChoice,
  redirectUriProblem,
  requestedScopes,
  tokenLimits,
} from '../../../src/domain/oauth-app.ts';

const fieldsOf = (fn: () => unknown): Record<string, string> => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError && error.code === 'INVALID_INPUT', String(error));
    return error.details.fields ?? { [error.details.field ?? '?']: error.message };
  }
  assert.fail('no refusal');
};

describe('OAuth apps: what a registration may say', () => {
  it('takes https anywhere, http to loopback only, and private-use schemes for public apps', () => {
    for (const ok of [
      'https://app.example/cb',
      'http://127.0.0.1:8123/cb',
      'http://[::1]/cb',
      'http://localhost/cb?x=1',
    ])
      assert.equal(redirectUriProblem(ok, 'confidential'), undefined, ok);
    assert.equal(redirectUriProblem('com.example.app:/oauth', 'public'), undefined);
    assert.match(redirectUriProblem('com.example.app:/oauth', 'confidential') ?? '', /only a public/);
    assert.match(redirectUriProblem('http://app.example/cb', 'public') ?? '', /use https/);
    assert.match(redirectUriProblem('https://app.example/cb#x', 'public') ?? '', /fragment/);
    assert.match(redirectUriProblem('/cb', 'public') ?? '', /absolute/);
    assert.match(redirectUriProblem('javascript:alert(1)', 'public') ?? '', /scheme/);
    assert.match(redirectUriProblem('myapp:/cb', 'public') ?? '', /scheme/, 'a private-use scheme has a dot');
    assert.match(redirectUriProblem('https://app.example/c b', 'public') ?? '', /space/);
    assert.match(redirectUriProblem(`https://app.example/${'a'.repeat(2000)}`, 'public') ?? '', /longer/);
  });

  it('checks name, kind and URIs, naming every wrong field at once', () => {
    assert.deepEqual(checkAppInput({ name: ' Home ', redirect_uris: ['https://a.example/cb'] }), {
      name: 'Home',
      redirectUris: ['https://a.example/cb'],
      kind: 'confidential',
    });
    assert.deepEqual(Object.keys(fieldsOf(() => checkAppInput({ name: '', redirect_uris: [] }))).sort(), [
      'name',
      'redirect_uris',
    ]);
    assert.deepEqual(
      Object.keys(
        fieldsOf(() =>
          checkAppInput({ name: 'x', redirect_uris: ['https://a.example', 'https://a.example'] }),
        ),
      ),
      ['redirect_uris'],
    );
    assert.deepEqual(
      Object.keys(
        fieldsOf(() => checkAppInput({ name: 'x', redirect_uris: ['https://a.example'], kind: 'web' })),
      ),
      ['kind'],
    );
    assert.deepEqual(
      Object.keys(fieldsOf(() => checkAppInput({ name: 'x\u0007', redirect_uris: ['https://a.example'] }))),
      ['name'],
    );
    assert.deepEqual(
      Object.keys(fieldsOf(() => checkAppInput({ name: 'x', redirect_uris: 'https://a.example' }))),
      ['redirect_uris'],
    );
  });
});

describe('OAuth consents: scopes and locks', () => {
  it('reads the scopes asked for, in order, ignoring what lockcloud does not know', () => {
    assert.deepEqual(requestedScopes('events:read  locks:read openid offline_access bogus'), [
      'locks:read',
      'events:read',
    ]);
    assert.deepEqual(requestedScopes(undefined), []);
  });

  it('grants a subset of what was asked, on every lock or some of the owner’s', () => {
    const own = new Set(['a', 'b']);
    assert.deepEqual(
      checkConsentChoice(['locks:read', 'locks:operate'], ['locks:read', 'keys:manage'], null, own),
      {
        scopes: ['locks:read'],
        lockIds: null,
      },
    );
    assert.deepEqual(checkConsentChoice(['locks:read'], ['locks:read'], ['b', 'b'], own), {
      scopes: ['locks:read'],
      lockIds: ['b'],
    });
    assert.deepEqual(
      Object.keys(fieldsOf(() => checkConsentChoice(['locks:read'], ['keys:manage'], null, own))),
      ['scopes'],
    );
    assert.deepEqual(
      Object.keys(fieldsOf(() => checkConsentChoice(['locks:read'], ['locks:read'], [], own))),
      ['lock_ids'],
    );
    assert.deepEqual(
      Object.keys(fieldsOf(() => checkConsentChoice(['locks:read'], ['locks:read'], ['c'], own))),
      ['lock_ids'],
    );
  });

  it('gives a token its scopes, its consent’s locks and its expiry as limits', () => {
    assert.deepEqual(tokenLimits(['events:read'], { lockIds: ['a'] }, 5), {
      scopes: ['events:read'],
      lockIds: ['a'],
      expiresAt: 5,
    });
  });
});
