import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisHandle } from './redis.js';

/** Where a caller stands in a fixed window. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window starts over (at least 1). */
  resetSeconds: number;
  /** False when this request was one too many. */
  allowed: boolean;
}

/** Fixed-window request counting per key: in memory for one instance, in Redis for many. */
export interface RateLimiter {
  /** Counts one request; `allowed` is false past `limit` in the window. */
  consume(key: string, limit: number, windowSeconds: number): Promise<RateState>;
  /** The state without counting. */
  peek(key: string, limit: number, windowSeconds: number): Promise<RateState>;
  /** Forgets the key (e.g. failed log-ins after a successful one). */
  reset(key: string, limit: number, windowSeconds: number): Promise<void>;
}

const stateOf = (res: RateLimiterRes | null, limit: number, windowSeconds: number): RateState => ({
  limit,
  remaining: res ? Math.max(0, limit - res.consumedPoints) : limit,
  resetSeconds: res ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : windowSeconds,
  allowed: res ? res.consumedPoints <= limit : true,
});

/** A rate limiter named `name` (its keys do not mix with other limiters'); Redis when given. */
export function createRateLimiter(name: string, redis?: RedisHandle): RateLimiter {
  // rate-limiter-flexible fixes points and duration per instance; plans differ, so one per (limit, window).
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (limit: number, windowSeconds: number) => {
    const id = `${limit}/${windowSeconds}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const options = { points: limit, duration: windowSeconds, keyPrefix: `${redis?.prefix ?? ''}rl:${name}:${id}` };
      limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis.client }) : new RateLimiterMemory(options);
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    async consume(key, limit, windowSeconds) {
      try {
        return stateOf(await limiterFor(limit, windowSeconds).consume(key), limit, windowSeconds);
      } catch (rejection) {
        // A refusal arrives as a rejected RateLimiterRes; anything else (Redis down) is a real error.
        if (rejection instanceof RateLimiterRes) return stateOf(rejection, limit, windowSeconds);
        throw rejection;
      }
    },
    async peek(key, limit, windowSeconds) {
      return stateOf(await limiterFor(limit, windowSeconds).get(key), limit, windowSeconds);
    },
    async reset(key, limit, windowSeconds) {
      await limiterFor(limit, windowSeconds).delete(key);
    },
  };
}
