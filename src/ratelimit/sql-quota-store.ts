import { randomUUID } from 'node:crypto';
import { recordCapture, UsageStore } from '../usage/usage-store.js';
import type { Db } from '../db/db.js';
import { RESERVATION_TTL_MS, type QuotaStore } from './quota-store.js';

/**
 * Quota reservations as rows next to the usage counters, decided under the account's
 * quota_usage row lock (Postgres: SELECT … FOR UPDATE; SQLite: one writer at a time). Exact for any
 * number of instances sharing the database, without Redis.
 */
export function sqlQuotaStore(db: Db): QuotaStore {
  const usage = new UsageStore(db);
  return {
    async reserve({ accountId, keyId, limit, period, now, ttlMs = RESERVATION_TTL_MS }) {
      return db.kysely.transaction().execute(async (trx) => {
        // A write first: SQLite then holds the write lock for the whole decision.
        await trx
          .insertInto('quota_usage')
          .values({ account_id: accountId, period: period.id, used: 0 })
          .onConflict((c) => c.columns(['account_id', 'period']).doNothing())
          .execute();
        const { used } = await trx
          .selectFrom('quota_usage')
          .select('used')
          .where('account_id', '=', accountId)
          .where('period', '=', period.id)
          .$if(db.dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirstOrThrow();
        await trx
          .deleteFrom('quota_reservations')
          .where('account_id', '=', accountId)
          .where('expires_at', '<=', now.toISOString())
          .execute();
        const held = await trx
          .selectFrom('quota_reservations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .where('period', '=', period.id)
          .executeTakeFirstOrThrow();
        const inFlight = Number(held.n);
        if (used + inFlight >= limit) return { granted: false as const, used, inFlight };
        const id = randomUUID();
        await trx
          .insertInto('quota_reservations')
          .values({
            id,
            account_id: accountId,
            period: period.id,
            expires_at: new Date(now.getTime() + ttlMs).toISOString(),
          })
          .execute();
        return { granted: true as const, reservation: { id, accountId, keyId, period }, used };
      });
    },

    async commit(reservation, now) {
      return db.kysely.transaction().execute(async (trx) => {
        await recordCapture(trx, { keyId: reservation.keyId, accountId: reservation.accountId, period: reservation.period, at: now });
        await trx.deleteFrom('quota_reservations').where('id', '=', reservation.id).execute();
        const row = await trx
          .selectFrom('quota_usage')
          .select('used')
          .where('account_id', '=', reservation.accountId)
          .where('period', '=', reservation.period.id)
          .executeTakeFirstOrThrow();
        return row.used;
      });
    },

    async commitIf(reservation, now, claim) {
      return db.kysely.transaction().execute(async (trx) => {
        if (!(await claim(trx))) return false;
        await recordCapture(trx, { keyId: reservation.keyId, accountId: reservation.accountId, period: reservation.period, at: now });
        await trx.deleteFrom('quota_reservations').where('id', '=', reservation.id).execute();
        return true;
      });
    },

    async release(reservation) {
      await db.kysely.deleteFrom('quota_reservations').where('id', '=', reservation.id).execute();
    },

    used(accountId, period) {
      return usage.used(accountId, period);
    },
  };
}
