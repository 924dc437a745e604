import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks must not go unless the operator says so: loopback, private, link-local (with the
 * cloud metadata address 169.254.169.254), carrier-grade NAT, multicast, reserved and unspecified
 * addresses, in IPv4 and IPv6 (IPv4-mapped IPv6 addresses are checked as the IPv4 they carry).
 */
const FORBIDDEN: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const LOOPBACK: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
];

function blockList(ranges: readonly [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return list;
}

export interface AddressPolicyOptions {
  /** Sandbox mode: local receivers on loopback work. */
  readonly allowLoopback: boolean;
  /** CIDR ranges the operator allows even though they are private. */
  readonly allow: readonly string[];
}

export type AddressCheck = (address: string) => boolean;

/** A function that says whether a resolved address may receive a webhook. */
export function addressPolicy(options: AddressPolicyOptions): AddressCheck {
  const forbidden = blockList(FORBIDDEN);
  const loopback = blockList(LOOPBACK);
  const allowed = new BlockList();
  for (const range of options.allow) {
    const [address = '', prefix] = range.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    allowed.addSubnet(address, Number(prefix ?? (family === 'ipv6' ? 128 : 32)), family);
  }
  return (raw) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw)?.[1];
    const address = mapped ?? raw;
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0) return false;
    if (allowed.check(address, family)) return true;
    if (options.allowLoopback && loopback.check(address, family)) return true;
    return !forbidden.check(address, family);
  };
}
