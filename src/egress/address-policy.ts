import ipaddr from 'ipaddr.js';
import type { Cidr } from '../values/cidr.js';

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Decides whether an IP address may be contacted. Only globally routable unicast
 * addresses are allowed, unless the operator opened a network explicitly.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isAddressAllowed(address: string, allowed: readonly Cidr[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  let addr = ipaddr.parse(address);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  for (const [net, bits] of allowed) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return true;
  }
  // IPv4-compatible ::a.b.c.d (deprecated by RFC 4291; `[::127.0.0.1]` in a URL): ipaddr.js calls it unicast.
  if (addr.kind() === 'ipv6' && addr.match(IPV4_COMPATIBLE[0], IPV4_COMPATIBLE[1])) return false;
  // ipaddr.js names every special-purpose range (private, loopback, linkLocal, carrierGradeNat,
  // reserved, multicast, uniqueLocal, 6to4, teredo, rfc6052/NAT64, benchmarking…); only "unicast" is public.
  return addr.range() === 'unicast';
}
