/** The SSRF guard: which resolved addresses a webhook may be sent to. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AddressPolicyOptions,
  addressPolicy,
  receiverHost,
} from '../../../src/adapters/webhooks/address-policy.ts';

/** The policy as a yes or no (the reason it gives is for the operator's log). */
const policyOf =
  (options: AddressPolicyOptions) =>
  (address: string): boolean =>
    addressPolicy(options)(address).allowed;

const strict = policyOf({ allowLoopback: false, allow: [] });

const REFUSED: Record<string, string> = {
  '127.0.0.1': 'loopback',
  '127.255.255.254': 'loopback, the whole /8',
  '10.0.0.1': 'private 10/8',
  '10.255.255.255': 'private 10/8',
  '172.16.0.1': 'private 172.16/12',
  '172.31.255.254': 'private 172.16/12',
  '192.168.1.1': 'private 192.168/16',
  '169.254.169.254': 'link-local: the cloud metadata address',
  '169.254.0.1': 'link-local',
  '100.64.0.1': 'carrier-grade NAT',
  '100.127.255.254': 'carrier-grade NAT',
  '224.0.0.1': 'multicast',
  '239.255.255.250': 'multicast',
  '0.0.0.0': 'unspecified',
  '0.1.2.3': '"this network"',
  '240.0.0.1': 'reserved',
  '255.255.255.255': 'broadcast',
  '192.0.2.1': 'documentation',
  '198.18.0.1': 'benchmarking',
  '::1': 'IPv6 loopback',
  '::': 'IPv6 unspecified',
  'fe80::1': 'IPv6 link-local',
  'fc00::1': 'IPv6 unique local',
  'fd12:3456:789a::1': 'IPv6 unique local',
  'ff02::1': 'IPv6 multicast',
  '2001:db8::1': 'IPv6 documentation',
  '::ffff:127.0.0.1': 'IPv4-mapped loopback',
  '::ffff:10.0.0.1': 'IPv4-mapped private',
  '::ffff:169.254.169.254': 'IPv4-mapped metadata address',
  '::ffff:7f00:1': 'IPv4-mapped loopback, in hex as URLs write it',
  '::FFFF:127.0.0.1': 'IPv4-mapped loopback, upper case',
  '64:ff9b::7f00:1': 'NAT64 of loopback',
  'not-an-address': 'not an IP address at all',
  '': 'empty',
};

const ALLOWED = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '2606:4700::1',
  '2a00:1450:4001::1',
  '::ffff:93.184.216.34',
];

describe('addressPolicy, production (no exceptions)', () => {
  for (const [address, why] of Object.entries(REFUSED)) {
    it(`refuses ${address || '""'} (${why})`, () => {
      assert.equal(strict(address), false);
    });
  }

  it('allows public addresses, IPv4 and IPv6', () => {
    for (const address of ALLOWED) assert.equal(strict(address), true, address);
  });

  it('refuses the neighbours of public space at each private range edge, and allows just outside', () => {
    assert.equal(strict('172.15.255.255'), true);
    assert.equal(strict('172.32.0.0'), true);
    assert.equal(strict('100.63.255.255'), true);
    assert.equal(strict('100.128.0.0'), true);
    assert.equal(strict('11.0.0.0'), true);
    assert.equal(strict('9.255.255.255'), true);
  });
});

describe('addressPolicy with allowLoopback (sandbox mode)', () => {
  const sandbox = policyOf({ allowLoopback: true, allow: [] });

  it('lets loopback through, IPv4, IPv6 and IPv4-mapped', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      assert.equal(sandbox(address), true, address);
    }
  });

  it('lets nothing else forbidden through', () => {
    for (const [address, why] of Object.entries(REFUSED)) {
      if (why.includes('loopback')) continue;
      assert.equal(sandbox(address), false, `${address} (${why})`);
    }
  });

  it('still allows public addresses', () => {
    for (const address of ALLOWED) assert.equal(sandbox(address), true, address);
  });
});

describe('addressPolicy with --webhook-allow ranges', () => {
  it('lets an allowed CIDR range through, and only that range', () => {
    const policy = policyOf({ allowLoopback: false, allow: ['10.1.0.0/16'] });
    assert.equal(policy('10.1.0.1'), true);
    assert.equal(policy('10.1.255.254'), true);
    assert.equal(policy('::ffff:10.1.2.3'), true, 'the IPv4-mapped form too');
    assert.equal(policy('10.2.0.1'), false);
    assert.equal(policy('10.0.255.255'), false);
    assert.equal(policy('127.0.0.1'), false);
    assert.equal(policy('169.254.169.254'), false);
    assert.equal(policy('93.184.216.34'), true);
  });

  it('127.0.0.0/8 lets loopback through in production', () => {
    const policy = policyOf({ allowLoopback: false, allow: ['127.0.0.0/8'] });
    assert.equal(policy('127.0.0.1'), true);
    assert.equal(policy('127.9.9.9'), true);
    assert.equal(policy('::1'), false, 'IPv6 loopback is another range');
    assert.equal(policy('10.0.0.1'), false);
  });

  it('takes IPv6 ranges and several ranges at once', () => {
    const policy = policyOf({ allowLoopback: false, allow: ['fd00:1::/32', '192.168.10.0/24'] });
    assert.equal(policy('fd00:1::5'), true);
    assert.equal(policy('fd00:2::5'), false);
    assert.equal(policy('192.168.10.7'), true);
    assert.equal(policy('192.168.11.7'), false);
  });

  it('a single address as a /32', () => {
    const policy = policyOf({ allowLoopback: false, allow: ['10.0.0.7/32'] });
    assert.equal(policy('10.0.0.7'), true);
    assert.equal(policy('10.0.0.8'), false);
  });
});

describe('the reason a refusal gives (for the operator log only)', () => {
  it('names the address and its class', () => {
    const verdict = addressPolicy({ allowLoopback: false, allow: [] })('10.0.0.1');
    assert.deepEqual(verdict, { allowed: false, why: '10.0.0.1 is special-purpose (private)' });
    assert.deepEqual(addressPolicy({ allowLoopback: false, allow: [] })('8.8.8.8'), { allowed: true });
  });
});

describe('receiverHost: what the per-host limit counts by', () => {
  it('is the IPv4 address, however it is written', () => {
    assert.equal(receiverHost('127.0.0.1'), '127.0.0.1');
    assert.equal(receiverHost('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(receiverHost('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(receiverHost('64:ff9b::808:808'), '8.8.8.8', 'through the well-known NAT64 prefix');
  });

  it('is the /64 of an IPv6 address: one host cannot spread over its own network', () => {
    assert.equal(receiverHost('2606:4700::1'), '2606:4700::/64');
    assert.equal(receiverHost('2606:4700::ffff:1234'), '2606:4700::/64');
    assert.equal(receiverHost('2606:4700:0:1::1'), '2606:4700:0:1::/64');
    assert.equal(receiverHost('::1'), '::/64');
  });
});
