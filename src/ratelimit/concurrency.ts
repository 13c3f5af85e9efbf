import { randomUUID } from 'node:crypto';
import type { RedisHandle } from './redis.js';

/** A held slot; release it exactly once (extra calls are ignored). */
export interface Lease {
  release(): Promise<void>;
}

/** Captures in progress per account, across every instance that shares the store. */
export interface ConcurrencyLimiter {
  /** A slot when fewer than `limit` are held, else null. */
  acquire(accountId: string, limit: number): Promise<Lease | null>;
  /** Slots held now. */
  inUse(accountId: string): Promise<number>;
}

/** A slot of a crashed instance frees itself after this (longer than any capture may run). */
export const LEASE_TTL_MS = 10 * 60 * 1000;

const once = (release: () => Promise<void>): Lease => {
  let done = false;
  return {
    release: async () => {
      if (done) return;
      done = true;
      await release();
    },
  };
};

/** Counts in this process: exact for one instance, which is all the embedded default runs. */
export function memoryConcurrency(): ConcurrencyLimiter {
  const held = new Map<string, number>();
  return {
    async acquire(accountId, limit) {
      const n = held.get(accountId) ?? 0;
      if (n >= limit) return null;
      held.set(accountId, n + 1);
      return once(async () => {
        const left = (held.get(accountId) ?? 1) - 1;
        if (left > 0) held.set(accountId, left);
        else held.delete(accountId);
      });
    },
    async inUse(accountId) {
      return held.get(accountId) ?? 0;
    },
  };
}

// One sorted set per account: members are leases, scores their expiry; checked and added atomically.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** Leases in Redis, shared by every instance; a crashed instance's leases expire. */
export function redisConcurrency(redis: RedisHandle): ConcurrencyLimiter {
  const keyOf = (accountId: string) => `${redis.prefix}conc:{${accountId}}`;
  return {
    async acquire(accountId, limit) {
      const id = randomUUID();
      const now = Date.now();
      const granted = await redis.client.eval(ACQUIRE, 1, keyOf(accountId), now, now + LEASE_TTL_MS, id, limit, LEASE_TTL_MS);
      if (granted !== 1) return null;
      return once(async () => {
        await redis.client.zrem(keyOf(accountId), id);
      });
    },
    async inUse(accountId) {
      return redis.client.zcount(keyOf(accountId), Date.now(), '+inf');
    },
  };
}
