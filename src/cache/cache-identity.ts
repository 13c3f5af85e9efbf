import { createHash } from 'node:crypto';
import type { TakeOptions } from '../options/schema.js';

/**
 * Options that do not change the file: how it is delivered (response_type, upload, attachment_name),
 * how long to wait for it (timeout), the cache's own settings, debug and async (a job's png is the
 * same image, recompressed to fewer bytes: either serves the other). Every other option is part
 * of a cache entry's identity (DESIGN.md §4.2). Credentials (apikey, access_key, signature, expires)
 * never reach the options.
 */
const NOT_OUTPUT: ReadonlySet<string> = new Set([
  'cache',
  'cache_ttl',
  'response_type',
  'upload',
  'attachment_name',
  'timeout',
  'debug',
  'async',
]);

/** Identities of frozen options (shared by the requests of one query string), for the account that last asked. */
const known = new WeakMap<TakeOptions, { accountId: string; identity: string }>();

/** Cache key: the account, every option that changes the output, and cache_key, hashed. */
export function cacheIdentity(accountId: string, options: TakeOptions): string {
  const seen = known.get(options);
  if (seen?.accountId === accountId) return seen.identity;
  const output = Object.entries(options)
    .filter(([name, value]) => value !== undefined && !NOT_OUTPUT.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const identity = createHash('sha256')
    .update(JSON.stringify([accountId, output]))
    .digest('hex');
  // Options that cannot change can keep theirs.
  if (Object.isFrozen(options)) known.set(options, { accountId, identity });
  return identity;
}
