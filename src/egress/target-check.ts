import { navigationFailed } from '../errors/navigation-failure.js';
import { AppError } from '../errors/app-error.js';
import { createAddressGuard } from './address-guard.js';
import type { Cidr } from '../values/cidr.js';
import { bareHost, systemResolver, type Resolver } from './resolver.js';

export type { Resolver } from './resolver.js';

/**
 * Checks a capture target before any browser work: http(s) only, and every address the host
 * resolves to must be public (or inside an allowed network). This is the early, friendly answer;
 * the egress proxy checks every request again (redirects, subresources) when it connects.
 */
export function createTargetCheck(allowed: readonly Cidr[], resolve: Resolver = systemResolver) {
  const guard = createAddressGuard({ allowed, resolve });
  return async function checkTarget(rawUrl: string): Promise<void> {
    const url = new URL(rawUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError('target_forbidden', `the scheme ${url.protocol} is not allowed; use http or https`);
    }
    const host = bareHost(url.hostname);
    const verdict = await guard(host);
    if (verdict.ok) return;
    if (verdict.reason === 'unresolved') throw navigationFailed('ERR_NAME_NOT_RESOLVED', { host });
    throw new AppError('target_forbidden', `the target ${host} resolves to an address that is not allowed`);
  };
}

export type TargetCheck = ReturnType<typeof createTargetCheck>;
