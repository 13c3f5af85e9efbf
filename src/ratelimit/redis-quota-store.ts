import { randomUUID } from 'node:crypto';
import { recordCapture, UsageStore } from '../usage/usage-store.js';
import type { Period } from '../usage/period.js';
import type { Db } from '../db/db.js';
import { RESERVATION_TTL_MS, type QuotaStore } from './quota-store.js';
import type { RedisHandle } from './redis.js';

// KEYS: used counter, reservations (sorted by expiry). ARGV: now, expiry, id, limit, ttl seconds, initial used.
// The counter mirrors the database's; when Redis lacks it (new period, restart) the caller loads it from the
// database and asks again with ARGV[6].
const RESERVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[6] == '' then return {-1, 0, 0} end
  redis.call('SET', KEYS[1], ARGV[6], 'EX', ARGV[5], 'NX')
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local used = tonumber(redis.call('GET', KEYS[1]))
local held = redis.call('ZCARD', KEYS[2])
if used + held >= tonumber(ARGV[4]) then return {0, used, held} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1, used, held + 1}`;

// KEYS: used counter, reservations. ARGV: id. The unit moves from "held" to "used" in one step.
const COMMIT = `
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCR', KEYS[1]) end
return -1`;

/**
 * Quota reservations in Redis (atomic Lua), with the database as the durable record: a commit
 * writes the database first and then moves the unit from held to used in Redis, so a crash in
 * between can only over-count, never admit more than the quota.
 */
export function redisQuotaStore(redis: RedisHandle, db: Db): QuotaStore {
  const usage = new UsageStore(db);
  // The hash tag keeps both keys of an account on one Redis Cluster slot, as a script needs.
  const keysOf = (accountId: string, period: Period) => [
    `${redis.prefix}quota:{${accountId}}:${period.id}:used`,
    `${redis.prefix}quota:{${accountId}}:${period.id}:held`,
  ];
  // Kept a day past the period's end, then Redis forgets it.
  const ttlOf = (period: Period, now: Date) => Math.max(60, Math.ceil((period.end.getTime() - now.getTime()) / 1000) + 86_400);

  return {
    async reserve({ accountId, keyId, limit, period, now, ttlMs = RESERVATION_TTL_MS }) {
      const id = randomUUID();
      const keys = keysOf(accountId, period);
      const run = (initial: string) =>
        redis.client.eval(RESERVE, 2, ...keys, now.getTime(), now.getTime() + ttlMs, id, limit, ttlOf(period, now), initial) as Promise<
          [number, number, number]
        >;
      let [granted, used, held] = await run('');
      if (granted === -1) [granted, used, held] = await run(String(await usage.used(accountId, period)));
      if (granted === 1) return { granted: true, reservation: { id, accountId, keyId, period }, used };
      return { granted: false, used, inFlight: held };
    },

    async commit(reservation, now) {
      await db.kysely
        .transaction()
        .execute((trx) =>
          recordCapture(trx, { keyId: reservation.keyId, accountId: reservation.accountId, period: reservation.period, at: now }),
        );
      const used = (await redis.client.eval(COMMIT, 2, ...keysOf(reservation.accountId, reservation.period), reservation.id)) as number;
      return used >= 0 ? used : usage.used(reservation.accountId, reservation.period);
    },

    async commitIf(reservation, now, claim) {
      const claimed = await db.kysely.transaction().execute(async (trx) => {
        if (!(await claim(trx))) return false;
        await recordCapture(trx, { keyId: reservation.keyId, accountId: reservation.accountId, period: reservation.period, at: now });
        return true;
      });
      // The database holds the charge now; Redis only mirrors it. Should Redis fail here, its held unit
      // lapses on its own, and the job still counts as charged (its webhook and answer must not be lost).
      if (claimed)
        await redis.client.eval(COMMIT, 2, ...keysOf(reservation.accountId, reservation.period), reservation.id).catch(() => undefined);
      return claimed;
    },

    async release(reservation) {
      await redis.client.zrem(keysOf(reservation.accountId, reservation.period)[1]!, reservation.id);
    },

    async used(accountId, period) {
      const cached = await redis.client.get(keysOf(accountId, period)[0]!);
      return cached === null ? usage.used(accountId, period) : Number(cached);
    },
  };
}
