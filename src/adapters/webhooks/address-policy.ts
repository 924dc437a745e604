import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** What the policy says of one resolved address; `why` is for the operator's log only. */
export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly why: string };

export type AddressCheck = (address: string) => AddressVerdict;

export interface AddressPolicyOptions {
  /** Sandbox mode: local receivers on loopback (127.0.0.0/8, ::1) work. */
  readonly allowLoopback: boolean;
  /** CIDR ranges the operator allows even though the policy refuses them (--webhook-allow). */
  readonly allow: readonly string[];
}

const ALLOWED: AddressVerdict = { allowed: true };
const refused = (address: string, why: string): AddressVerdict => ({
  allowed: false,
  why: `${address} is ${why}`,
});

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text) as Cidr;
// The IANA IPv6 Address Space registry's global unicast block: every other /3 is reserved,
// unique-local, link-local or multicast, and none holds a public receiver.
const GLOBAL_UNICAST = cidr('2000::/3');
// RFC 6052's well-known NAT64 prefix: a server behind DNS64 reaches an IPv4 receiver through it,
// so it is judged by the IPv4 address it carries. The local-use prefix 64:ff9b:1::/48 (RFC 8215)
// maps however the local network chooses and is refused.
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');

const within = (address: Address, [network, bits]: Cidr): boolean =>
  address.kind() === network.kind() && address.match(network, bits);

/** The IPv4 address carried in the last 32 bits of an IPv6 address. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [hi = 0, lo = 0] = address.parts.slice(6);
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/**
 * The classification itself, with no exceptions. ipaddr.js's `range()` names every block of the
 * IANA IPv4 and IPv6 Special-Purpose Address Registries (and multicast, site-local, SRv6 SIDs):
 * anything but `unicast` is refused. On top of it, IPv6 must be global unicast (2000::/3), which
 * refuses the deprecated IPv4-compatible `::a.b.c.d`, the dummy prefix 100:0:0:1::/64 and the rest of
 * ::/8 that the library calls unicast. An IPv4-mapped address and a well-known NAT64 address are
 * judged by the IPv4 address inside. 6to4 (2002::/16) and Teredo (2001::/32) are refused whatever
 * they carry: deprecated transition tunnels whose relays the server does not choose.
 */
function classify(text: string, address: Address): AddressVerdict {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? ALLOWED : refused(text, `special-purpose (${range})`);
  }
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classify(text, v6.toIPv4Address());
  if (within(v6, NAT64_WELL_KNOWN)) return classify(text, embeddedIPv4(v6));
  const range = v6.range();
  if (range !== 'unicast') return refused(text, `special-purpose (${range})`);
  if (!within(v6, GLOBAL_UNICAST)) return refused(text, 'outside global unicast 2000::/3');
  return ALLOWED;
}

/** Parses an address as DNS or a URL gives it (strict: `127.1` and `0x7f.1` are not addresses). */
function parse(text: string): Address | undefined {
  if (isIP(text) === 0) return undefined;
  try {
    return ipaddr.parse(text);
  } catch {
    return undefined;
  }
}

/** The forms an address may be matched against an operator's range in: as given and, for an IPv4-mapped address, its IPv4. */
function forms(address: Address): Address[] {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return [address, (address as ipaddr.IPv6).toIPv4Address()];
  return [address];
}

const LOOPBACK = [cidr('127.0.0.0/8'), cidr('::1/128')];

/** A function that says whether a resolved address may receive a webhook (and, if not, why). */
export function addressPolicy(options: AddressPolicyOptions): AddressCheck {
  const allowed = options.allow.map((range) =>
    cidr(range.includes('/') ? range : `${range}/${isIP(range) === 6 ? 128 : 32}`),
  );
  if (options.allowLoopback) allowed.push(...LOOPBACK);
  return (text) => {
    const address = parse(text);
    if (address === undefined) return { allowed: false, why: `"${text}" is not an IP address` };
    if (forms(address).some((form) => allowed.some((range) => within(form, range)))) return ALLOWED;
    return classify(text, address);
  };
}

/**
 * The receiver host a delivery counts against for the per-host limit: the IPv4 address (also when
 * written IPv4-mapped or through the well-known NAT64 prefix), or the /64 network of an IPv6
 * address, since one IPv6 host is given a whole /64 and could otherwise spread over addresses
 * without end.
 */
export function receiverHost(text: string): string {
  const address = parse(text);
  if (address === undefined) return text;
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  if (within(v6, NAT64_WELL_KNOWN)) return embeddedIPv4(v6).toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
