import type { Db } from '../db/db.js';
import { memoryConcurrency, redisConcurrency, type ConcurrencyLimiter } from './concurrency.js';
import type { QuotaStore } from './quota-store.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';
import { redisQuotaStore } from './redis-quota-store.js';
import type { RedisHandle } from './redis.js';
import { sqlQuotaStore } from './sql-quota-store.js';

/** Everything that limits callers: request rate, concurrent captures, the monthly quota, log-in attempts. */
export interface Limits {
  rate: RateLimiter;
  concurrency: ConcurrencyLimiter;
  quota: QuotaStore;
  /** Dashboard log-in and sign-up attempts. */
  logins: RateLimiter;
  /** Where the limits live, for /readyz and the logs. */
  backend: 'memory' | 'redis';
  /** Resolves when the backend answers (always, in memory). */
  ping(): Promise<void>;
}

/**
 * In this process (plus quota reservations in the database) by default; in Redis, shared by every
 * instance, when a Redis handle is given.
 */
export function createLimits(input: { db: Db; redis?: RedisHandle | undefined }): Limits {
  const { db, redis } = input;
  return {
    rate: createRateLimiter('rate', redis),
    concurrency: redis ? redisConcurrency(redis) : memoryConcurrency(),
    quota: redis ? redisQuotaStore(redis, db) : sqlQuotaStore(db),
    logins: createRateLimiter('login', redis),
    backend: redis ? 'redis' : 'memory',
    ping: async () => {
      if (redis) await redis.client.ping();
    },
  };
}
