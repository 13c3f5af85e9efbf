import { isIP } from 'node:net';

/**
 * SHUTTER_DNS_SERVERS: a comma list of `address` or `address:port` (`[v6]:port` for IPv6), in the
 * form c-ares' setServers takes. Throws naming the first bad entry.
 */
export function parseDnsServers(text: string): string[] {
  const servers = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) {
    const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server) ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(server);
    const address = m ? m[1]! : server;
    const port = m?.[2] === undefined ? 53 : Number(m[2]);
    if (isIP(address) === 0 || port < 1 || port > 65535) {
      throw new Error(`"${server}" is not a DNS server address; use IP or IP:port, e.g. 1.1.1.1,127.0.0.1:5353,[::1]:53`);
    }
  }
  return servers;
}
