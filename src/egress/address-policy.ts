import ipaddr from 'ipaddr.js';
import type { Cidr } from '../values/cidr.js';

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** Global unicast (RFC 4291): every other IPv6 block is reserved, special or unassigned. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * Decides whether an IP address may be contacted. Only globally routable unicast
 * addresses are allowed, unless the operator opened a network explicitly.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isAddressAllowed(address: string, allowed: readonly Cidr[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  let addr = parseAddress(address);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  for (const [net, bits] of allowed) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return true;
  }
  // IPv4-compatible ::a.b.c.d (deprecated by RFC 4291; `[::127.0.0.1]` in a URL): ipaddr.js calls it unicast.
  if (addr.kind() === 'ipv6' && addr.match(IPV4_COMPATIBLE[0], IPV4_COMPATIBLE[1])) return false;
  if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST[0], GLOBAL_UNICAST[1])) return false;
  // ipaddr.js names every special-purpose range (private, loopback, linkLocal, carrierGradeNat,
  // reserved, multicast, uniqueLocal, 6to4, teredo, rfc6052/NAT64, benchmarking…); only "unicast" is public.
  return addr.range() === 'unicast';
}

/**
 * ipaddr.js reads an IPv6 address with a dotted IPv4 tail (`::1.2.3.4`, as c-ares writes ::/96
 * answers) as IPv4-mapped whatever its first 96 bits say; those bits are parsed here on their own.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const cut = address.lastIndexOf(':');
  const tail = address.slice(cut + 1);
  if (cut < 0 || !tail.includes('.')) return ipaddr.parse(address);
  const head = ipaddr.IPv6.parse(`${address.slice(0, cut + 1)}0:0`);
  const [a, b, c, d] = ipaddr.IPv4.parse(tail).toByteArray() as [number, number, number, number];
  return new ipaddr.IPv6([...head.parts.slice(0, 6), (a << 8) | b, (c << 8) | d]);
}
