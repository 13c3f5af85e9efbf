import { isAddressAllowed } from './address-policy.js';
import type { Cidr } from '../values/cidr.js';
import { resolveHost, type Resolver } from './resolver.js';

/** What the guard decided for one host: the checked addresses to connect to, or why not. */
export type GuardVerdict = { ok: true; addresses: string[] } | { ok: false; reason: 'forbidden' | 'unresolved' };

export interface AddressGuardOptions {
  allowed: readonly Cidr[];
  resolve: Resolver;
  /** How long an allowed answer is reused; 0 resolves every time. */
  cacheMs?: number;
}

const MAX_CACHED_HOSTS = 1000;

/**
 * Resolves a host once and checks every address it resolves to: one forbidden address refuses
 * the host (a mixed answer is how rebinding attacks hedge). The caller connects to the addresses
 * returned here, never to a fresh resolution, so there is no window between check and use.
 */
export function createAddressGuard(options: AddressGuardOptions): (host: string) => Promise<GuardVerdict> {
  const cache = new Map<string, { addresses: string[]; expires: number }>();
  const cacheMs = options.cacheMs ?? 0;
  return async function check(host: string): Promise<GuardVerdict> {
    const cached = cache.get(host);
    if (cached && cached.expires > Date.now()) return { ok: true, addresses: cached.addresses };
    let addresses: string[];
    try {
      addresses = await resolveHost(host, options.resolve);
    } catch {
      return { ok: false, reason: 'unresolved' };
    }
    // An empty answer gives nothing checked to connect to: refused like a forbidden one.
    if (addresses.length === 0 || !addresses.every((a) => isAddressAllowed(a, options.allowed))) {
      return { ok: false, reason: 'forbidden' };
    }
    if (cacheMs > 0) {
      if (cache.size >= MAX_CACHED_HOSTS) cache.delete(cache.keys().next().value!);
      cache.set(host, { addresses, expires: Date.now() + cacheMs });
    }
    return { ok: true, addresses };
  };
}
