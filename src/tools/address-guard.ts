/**
 * Which network addresses a tool acting for the model may reach: public
 * ones only, unless the user allows private addresses. Loopback, private
 * (RFC 1918, IPv6 unique-local), link-local, carrier-grade NAT, unspecified,
 * multicast, reserved and cloud-metadata addresses are refused, as are IPv6
 * addresses that embed a refused IPv4 one (mapped, compatible, NAT64, 6to4).
 * Names are judged by every address they resolve to, and a connection goes
 * to the addresses that were judged (see guardedLookup), so a name cannot
 * resolve to a public address for the check and a private one for the
 * connection.
 */
import type { LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** A host or address the guard refused; the message says why and how the user can allow it. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
}

/** Names of cloud metadata services, refused before any lookup (they may resolve only inside the cloud). */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** Where an address belongs when it is not public. */
type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'cloud metadata'
  | 'multicast'
  | 'reserved';

/** [first address, prefix length, class], IPv4 as a 32-bit number. */
const IPV4_RANGES: readonly [string, number, AddressClass][] = [
  ['169.254.169.254', 32, 'cloud metadata'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** [first address, prefix length, class], IPv6 as eight 16-bit groups. */
const IPV6_RANGES: readonly [string, number, AddressClass][] = [
  ['fd00:ec2::254', 128, 'cloud metadata'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
];

/**
 * Why `address` (an IPv4 or IPv6 literal, brackets and zone allowed) may
 * not be reached, e.g. "a loopback address"; undefined for a public address.
 * Throws for text that is no IP address.
 */
export function blockedAddressReason(address: string): string | undefined {
  const found = classify(address.replace(/^\[|\]$/g, ''));
  return found === undefined ? undefined : `${/^[aeiou]/.test(found) ? 'an' : 'a'} ${found} address`;
}

function classify(address: string): AddressClass | undefined {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classifyV4(ipv4Number(bare));
  if (family !== 6) throw new Error(`"${address}" is not an IP address`);
  const groups = ipv6Groups(bare);
  const embedded = embeddedIpv4(groups);
  if (embedded !== undefined) return classifyV4(embedded);
  return IPV6_RANGES.find(([first, bits]) => inPrefix(groups, ipv6Groups(first), bits))?.[2];
}

function classifyV4(value: number): AddressClass | undefined {
  return IPV4_RANGES.find(([first, bits]) => value >>> (32 - bits) === ipv4Number(first) >>> (32 - bits))?.[2];
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(groups: number[]): number | undefined {
  const low = ((groups[6]! << 16) | groups[7]!) >>> 0;
  const zeros = (from: number, to: number): boolean => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return low;
  if (zeros(0, 6) && low > 1) return low;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return low;
  if (groups[0] === 0x2002) return ((groups[1]! << 16) | groups[2]!) >>> 0;
  return undefined;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
}

/** Eight 16-bit groups of a valid IPv6 literal (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const value = ipv4Number(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (side: string): number[] => (side === '' ? [] : side.split(':').map((group) => parseInt(group, 16)));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function inPrefix(groups: number[], first: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i]! & mask) !== (first[i]! & mask)) return false;
  }
  return true;
}

/** What web_fetch's refusal adds, so whoever reads it knows who can change it and how. */
const HOW_TO_ALLOW =
  'web_fetch does not reach loopback, private, link-local or cloud-metadata addresses. If the user wants it to, ' +
  'they can set allow_private_addresses = true under [web_fetch] in their config.toml.';

/**
 * Why a host (a URL's or a proxy request's hostname: a name, an IP literal,
 * brackets allowed) is not to be reached before any lookup: an address not
 * to reach, a metadata service's name, or `localhost` and its subdomains
 * (RFC 6761: whatever a resolver says, they are this machine). Undefined
 * for a name that may be looked up (its addresses are judged then).
 */
export function blockedHostReason(hostname: string): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host.replace(/%.*$/, '')) !== 0) return blockedAddressReason(host);
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return 'a cloud metadata service';
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a loopback address';
  return undefined;
}

/** The first of a name's resolved addresses that is not to be reached, and why; undefined when all may be. */
export function blockedAmong<A extends { address: string }>(addresses: readonly A[]): { address: string; reason: string } | undefined {
  for (const { address } of addresses) {
    const reason = blockedAddressReason(address);
    if (reason !== undefined) return { address, reason };
  }
  return undefined;
}

/**
 * Refuses a URL host (`URL.hostname`: a name, an IPv4 literal already
 * normalised by the URL parser, or a bracketed IPv6 literal) that is an
 * address not to reach or a metadata service's name. Names that pass are
 * judged again, by their addresses, in guardedLookup.
 */
export function checkHost(hostname: string): void {
  const reason = blockedHostReason(hostname);
  if (reason !== undefined) throw new BlockedAddressError(`${hostname} is ${reason}. ${HOW_TO_ALLOW}`);
}

/**
 * A `lookup` for net/http/https connections: resolves the name once and
 * hands the connection only addresses it judged, failing with a
 * BlockedAddressError when any of them is not to be reached.
 */
export const guardedLookup: LookupFunction = (hostname: string, options: LookupOptions, callback): void => {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
  // node:dns (and the UDP module it loads) is required on a lookup, not when the tools load.
  (require('node:dns') as typeof import('node:dns')).lookup(hostname, { all: true, family }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = blockedAmong(addresses);
    if (blocked) return callback(new BlockedAddressError(`${hostname} resolves to ${blocked.address}, ${blocked.reason}. ${HOW_TO_ALLOW}`), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
};
