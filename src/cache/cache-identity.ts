import { createHash } from 'node:crypto';
import type { TakeOptions } from '../options/schema.js';

/**
 * Options that do not change the file: how it is delivered (response_type, upload, attachment_name),
 * how long to wait for it (timeout), the cache's own settings and debug. Every other option is part
 * of a cache entry's identity (DESIGN.md §4.2). Credentials (apikey, access_key, signature, expires)
 * never reach the options.
 */
const NOT_OUTPUT: ReadonlySet<string> = new Set(['cache', 'cache_ttl', 'response_type', 'upload', 'attachment_name', 'timeout', 'debug']);

/** Cache key: the account, every option that changes the output, and cache_key, hashed. */
export function cacheIdentity(accountId: string, options: TakeOptions): string {
  const output = Object.entries(options)
    .filter(([name, value]) => value !== undefined && !NOT_OUTPUT.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([accountId, output]))
    .digest('hex');
}
