/**
 * Every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (https://www.iana.org/assignments/iana-ipv4-special-registry/,
 * https://www.iana.org/assignments/iana-ipv6-special-registry/), as they stand after RFC 6890 and
 * every RFC that has added to or changed them since, up to RFC 9780 (the IPv6 dummy prefix, 2025):
 * 25 IPv4 entries (26 rows: 192.0.0.170 and .171 share one) and 25 IPv6 entries. Written out from those RFCs and the registries' published tables
 * (this machine has no network to fetch them); `reachable` is the registry's "Globally Reachable"
 * column (RFC 8190), `deprecated` for the two entries the registry marks so.
 *
 * `verdict` is the webhook policy's answer for any address inside the block, decided in
 * docs/webhooks.md: every block is refused, including the ones the registry calls globally
 * reachable (anycast infrastructure, AS112 DNS sinks, AMT relays, ORCHIDv2 and DET identifiers: none
 * hosts a customer's receiver), except the well-known NAT64 prefix, which is judged by the IPv4
 * address it carries (`embedded`).
 */
export interface RegistryEntry {
  readonly block: string;
  readonly name: string;
  readonly rfc: string;
  readonly reachable: 'True' | 'False' | 'N/A' | 'deprecated';
  /** An address inside the block, besides its first and last. */
  readonly inside: string;
  readonly verdict: 'refused' | 'embedded';
}

// biome-ignore format: one registry entry a line, as the registry lists them
export const IPV4_SPECIAL_PURPOSE: readonly RegistryEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791', reachable: 'False', inside: '0.1.2.3', verdict: 'refused' },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122', reachable: 'False', inside: '0.0.0.0', verdict: 'refused' },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '10.20.30.40', verdict: 'refused' },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598', reachable: 'False', inside: '100.100.100.100', verdict: 'refused' },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122', reachable: 'False', inside: '127.0.0.1', verdict: 'refused' },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', reachable: 'False', inside: '169.254.169.254', verdict: 'refused' },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '172.20.1.1', verdict: 'refused' },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890', reachable: 'False', inside: '192.0.0.100', verdict: 'refused' },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', reachable: 'False', inside: '192.0.0.2', verdict: 'refused' },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', reachable: 'False', inside: '192.0.0.8', verdict: 'refused' },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', reachable: 'True', inside: '192.0.0.9', verdict: 'refused' },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', reachable: 'True', inside: '192.0.0.10', verdict: 'refused' },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050', reachable: 'False', inside: '192.0.0.170', verdict: 'refused' },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050', reachable: 'False', inside: '192.0.0.171', verdict: 'refused' },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', reachable: 'False', inside: '192.0.2.1', verdict: 'refused' },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', reachable: 'True', inside: '192.31.196.1', verdict: 'refused' },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', inside: '192.52.193.1', verdict: 'refused' },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', reachable: 'deprecated', inside: '192.88.99.1', verdict: 'refused' },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', reachable: 'False', inside: '192.88.99.2', verdict: 'refused' },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '192.168.1.1', verdict: 'refused' },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', reachable: 'True', inside: '192.175.48.1', verdict: 'refused' },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', reachable: 'False', inside: '198.19.0.1', verdict: 'refused' },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', reachable: 'False', inside: '198.51.100.7', verdict: 'refused' },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', reachable: 'False', inside: '203.0.113.7', verdict: 'refused' },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112', reachable: 'False', inside: '250.1.2.3', verdict: 'refused' },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919', reachable: 'False', inside: '255.255.255.255', verdict: 'refused' },
];

// biome-ignore format: one registry entry a line, as the registry lists them
export const IPV6_SPECIAL_PURPOSE: readonly RegistryEntry[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', reachable: 'False', inside: '::1', verdict: 'refused' },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', reachable: 'False', inside: '::', verdict: 'refused' },
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291', reachable: 'False', inside: '::ffff:10.0.0.1', verdict: 'embedded' },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', reachable: 'True', inside: '64:ff9b::a00:1', verdict: 'embedded' },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', reachable: 'False', inside: '64:ff9b:1::1', verdict: 'refused' },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', reachable: 'False', inside: '100::1', verdict: 'refused' },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', reachable: 'False', inside: '100:0:0:1::1', verdict: 'refused' },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', reachable: 'False', inside: '2001:100::1', verdict: 'refused' },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', reachable: 'N/A', inside: '2001::1', verdict: 'refused' },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', reachable: 'True', inside: '2001:1::1', verdict: 'refused' },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', reachable: 'True', inside: '2001:1::2', verdict: 'refused' },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665', reachable: 'True', inside: '2001:1::3', verdict: 'refused' },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180', reachable: 'False', inside: '2001:2::1', verdict: 'refused' },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', inside: '2001:3::1', verdict: 'refused' },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', reachable: 'True', inside: '2001:4:112::1', verdict: 'refused' },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', reachable: 'deprecated', inside: '2001:10::1', verdict: 'refused' },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', reachable: 'True', inside: '2001:20::1', verdict: 'refused' },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374', reachable: 'True', inside: '2001:30::1', verdict: 'refused' },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', reachable: 'False', inside: '2001:db8::1', verdict: 'refused' },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', reachable: 'N/A', inside: '2002:808:808::1', verdict: 'refused' },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', reachable: 'True', inside: '2620:4f:8000::1', verdict: 'refused' },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', reachable: 'False', inside: '3fff::1', verdict: 'refused' },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', reachable: 'False', inside: '5f00::1', verdict: 'refused' },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', reachable: 'False', inside: 'fd12:3456:789a::1', verdict: 'refused' },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', reachable: 'False', inside: 'fe80::1', verdict: 'refused' },
];
