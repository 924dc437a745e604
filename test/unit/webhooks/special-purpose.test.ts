/**
 * The webhook address policy against every entry of the IANA special-purpose registries (the table
 * in special-purpose-registry.ts): the first, the last and one more address of every block get the
 * policy's documented verdict, in production and in the sandbox (which opens loopback only), and in
 * every form an address can arrive in. Then the forms the issue found allowed (IPv4-compatible,
 * 6to4, local-use NAT64, Teredo, site-local, the 6to4 relay anycast), which today's main let through.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { addressPolicy } from '../../../src/adapters/webhooks/address-policy.ts';
import {
  IPV4_SPECIAL_PURPOSE,
  IPV6_SPECIAL_PURPOSE,
  type RegistryEntry,
} from './special-purpose-registry.ts';

const production = addressPolicy({ allowLoopback: false, allow: [] });
const sandbox = addressPolicy({ allowLoopback: true, allow: [] });
const allows = (policy: typeof production, address: string): boolean => policy(address).allowed;

/** The first and last address of a block, and the entry's own sample from inside it. */
function samples(entry: RegistryEntry): string[] {
  const first = ipaddr.IPv4.isValid(entry.block.split('/')[0] ?? '')
    ? ipaddr.IPv4.networkAddressFromCIDR(entry.block)
    : ipaddr.IPv6.networkAddressFromCIDR(entry.block);
  const last = ipaddr.IPv4.isValid(entry.block.split('/')[0] ?? '')
    ? ipaddr.IPv4.broadcastAddressFromCIDR(entry.block)
    : ipaddr.IPv6.broadcastAddressFromCIDR(entry.block);
  for (const address of [entry.inside])
    assert.ok(ipaddr.parse(address).match(ipaddr.parseCIDR(entry.block)), `${address} is in ${entry.block}`);
  return [first.toString(), entry.inside, last.toString()];
}

/** What an embedding address carries: its last 32 bits as IPv4. */
function carried(address: string): string {
  const parts = (ipaddr.parse(address) as ipaddr.IPv6).parts;
  const [hi = 0, lo = 0] = parts.slice(6);
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

const isLoopback = (address: string): boolean => {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'loopback';
  const v6 = parsed as ipaddr.IPv6;
  return v6.range() === 'loopback' || (v6.isIPv4MappedAddress() && v6.toIPv4Address().range() === 'loopback');
};

describe('the IANA special-purpose registries, entry by entry', () => {
  it('has the whole of both registries in the table', () => {
    assert.equal(new Set(IPV4_SPECIAL_PURPOSE.map((e) => e.block)).size, 26);
    assert.equal(new Set(IPV6_SPECIAL_PURPOSE.map((e) => e.block)).size, 25);
  });

  for (const entry of [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE]) {
    it(`${entry.block} ${entry.name} (${entry.rfc}; globally reachable: ${entry.reachable}): ${entry.verdict}`, () => {
      for (const address of samples(entry)) {
        if (entry.verdict === 'refused') {
          assert.equal(allows(production, address), false, `${address} refused in production`);
          assert.equal(allows(sandbox, address), isLoopback(address), `${address} in the sandbox`);
          continue;
        }
        // The embedded IPv4 address decides: whatever it gets, the embedding gets.
        const inner = carried(address);
        assert.equal(allows(production, address), allows(production, inner), `${address} as ${inner}`);
      }
    });
  }

  it('refuses every IPv4 entry in its IPv4-mapped and well-known NAT64 forms too', () => {
    for (const entry of IPV4_SPECIAL_PURPOSE) {
      for (const address of samples(entry)) {
        const mapped = ipaddr.IPv4.parse(address).toIPv4MappedAddress();
        const nat64 = new ipaddr.IPv6([0x64, 0xff9b, 0, 0, 0, 0, ...mapped.parts.slice(6)]);
        for (const form of [mapped.toString(), `::ffff:${address}`, nat64.toString()])
          assert.equal(allows(production, form), false, `${form} (${entry.block})`);
      }
    }
  });

  it('lets public addresses through in every form, including well-known NAT64 (DNS64 networks)', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2606:4700::1111',
      '2a00:1450:4001::1',
      '2001:200::1',
      '192.88.98.255',
      '192.88.100.0',
    ])
      assert.equal(allows(production, address), true, address);
  });
});

describe('the gaps issue 17 found', () => {
  const cases: [string, string][] = [
    ['::7f00:1', 'IPv4-compatible loopback (::127.0.0.1, deprecated by RFC 4291)'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:c0a8:101::', '6to4 of 192.168.1.1'],
    ['2002:a9fe:a9fe::1', '6to4 of the metadata address'],
    ['64:ff9b:1::1', 'local-use NAT64 (RFC 8215)'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 of the metadata address'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, a real-looking one'],
    ['fec0::1', 'site-local (deprecated by RFC 3879)'],
    ['192.88.99.1', '6to4 relay anycast (deprecated by RFC 7526)'],
  ];
  for (const [address, what] of cases) {
    it(`refuses ${address}: ${what}`, () => {
      assert.equal(allows(production, address), false);
      assert.equal(allows(sandbox, address), false, 'the sandbox opens loopback only, not its disguises');
    });
  }

  it('--webhook-allow still opens a range the classification refuses, and only that range', () => {
    const opened = addressPolicy({ allowLoopback: false, allow: ['2002::/16', '192.88.99.0/24'] });
    assert.equal(opened('2002:c0a8:101::').allowed, true);
    assert.equal(opened('192.88.99.1').allowed, true);
    assert.equal(opened('::7f00:1').allowed, false);
  });
});
