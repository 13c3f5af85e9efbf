import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Turns a host name into the addresses it resolves to (all of them, in the resolver's order). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** getaddrinfo, as every other program on the machine resolves names (hosts file, search domains). */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A resolver answering from a fixed table, falling back to another resolver for other names
 * (or failing like ENOTFOUND). For tests only: it lets `ads.example` reach a local fixture server.
 */
export function staticResolver(table: Record<string, string | readonly string[]>, fallback?: Resolver): Resolver {
  const entries = new Map(Object.entries(table).map(([name, value]) => [name.toLowerCase(), [value].flat()]));
  return async (hostname) => {
    // As in DNS, a trailing dot names the same host.
    const addresses = entries.get(hostname.toLowerCase().replace(/\.$/, ''));
    if (addresses) return [...addresses];
    if (fallback) return fallback(hostname);
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
}

/** The host part of a URL or authority without IPv6 brackets, lower-cased. */
export function bareHost(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * The host as a browser reads it (WHATWG URL host parsing, like Chromium): `0x7f.1`, `2130706433`,
 * `０x7f.1` and `127%2E0.0.1` all become `127.0.0.1`, so every spelling of an address is checked
 * as that address and never handed to getaddrinfo as a "name". Undefined for an invalid host.
 */
export function canonicalHost(host: string): string | undefined {
  try {
    const hostname = new URL(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/`).hostname;
    return hostname ? bareHost(hostname) : undefined;
  } catch {
    return undefined;
  }
}

/** A literal IP address (in any spelling) is its own answer; a name is asked of the resolver. */
export async function resolveHost(host: string, resolve: Resolver): Promise<string[]> {
  const canonical = canonicalHost(host);
  if (canonical === undefined) throw Object.assign(new Error(`invalid host ${host}`), { code: 'EINVAL' });
  if (isIP(canonical)) return [canonical];
  // RFC 6761: `.invalid` never resolves, so no DNS query leaves for it (html input lives on html.shutter.invalid).
  if (/(^|\.)invalid\.?$/.test(canonical)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${canonical}`), { code: 'ENOTFOUND' });
  return resolve(canonical);
}
