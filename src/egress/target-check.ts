import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../errors/app-error.js';
import { isAddressAllowed } from './address-policy.js';
import type { Cidr } from './cidr.js';

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a capture target before any browser work: http(s) only, and every address the
 * host resolves to must be public (or inside an allowed network). The full egress guard that
 * covers redirects and subresources is a separate layer; this refuses the obvious cases early.
 */
export function createTargetCheck(allowed: readonly Cidr[], resolve: Resolver = systemResolver) {
  return async function checkTarget(rawUrl: string): Promise<void> {
    const url = new URL(rawUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError('target_forbidden', `the scheme ${url.protocol} is not allowed; use http or https`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host)) {
      addresses = [host];
    } else {
      try {
        addresses = await resolve(host);
      } catch {
        throw new AppError('navigation_failed', `could not resolve the host ${host}`);
      }
    }
    if (addresses.length === 0 || !addresses.every((a) => isAddressAllowed(a, allowed))) {
      throw new AppError('target_forbidden', `the target ${host} resolves to an address that is not allowed`);
    }
  };
}

export type TargetCheck = ReturnType<typeof createTargetCheck>;
