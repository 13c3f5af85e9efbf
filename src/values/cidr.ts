import ipaddr from 'ipaddr.js';

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses "10.0.0.0/8, 127.0.0.1" into CIDR tuples; a bare address means a single host. */
export function parseCidrList(text: string): Cidr[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry) as Cidr;
        const addr = ipaddr.parse(entry);
        return [addr, addr.kind() === 'ipv4' ? 32 : 128] as Cidr;
      } catch {
        throw new Error(`"${entry}" is not a CIDR (expected e.g. 10.0.0.0/8 or fd00::/8)`);
      }
    });
}
