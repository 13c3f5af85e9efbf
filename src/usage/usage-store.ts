import type { Kysely } from 'kysely';
import type { Db } from '../db/db.js';
import type { Tables } from '../db/tables.js';
import { preparedQuery } from '../db/prepared-query.js';
import { dayOf, type Period } from './period.js';

/** Captures on one day. */
export interface DayUsage {
  day: string;
  captures: number;
  /** Answers from the capture cache that day (not charged). */
  cacheHits?: number;
}

/** Captures of one key in a span of days. */
export interface KeyUsage {
  keyId: string;
  captures: number;
}

/**
 * Counts one successful capture with `executor` (inside the caller's transaction): per key per day
 * for the dashboard, and per account per period, the durable count the quota is checked against.
 */
export async function recordCapture(
  executor: Kysely<Tables>,
  input: { keyId: string; accountId: string; period: Period; at: Date },
): Promise<void> {
  await executor
    .insertInto('usage_daily')
    .values({ key_id: input.keyId, account_id: input.accountId, day: dayOf(input.at), captures: 1 })
    .onConflict((c) => c.columns(['key_id', 'day']).doUpdateSet((eb) => ({ captures: eb(eb.ref('usage_daily.captures'), '+', 1) })))
    .execute();
  await executor
    .insertInto('quota_usage')
    .values({ account_id: input.accountId, period: input.period.id, used: 1 })
    .onConflict((c) => c.columns(['account_id', 'period']).doUpdateSet((eb) => ({ used: eb(eb.ref('quota_usage.used'), '+', 1) })))
    .execute();
}

/** Counts one answer from the capture cache (not charged) for the key's day. */
export async function recordCacheHit(executor: Kysely<Tables>, input: { keyId: string; accountId: string; at: Date }): Promise<void> {
  await countCacheHit(executor, input.keyId, input.accountId, dayOf(input.at));
}

const countCacheHit = preparedQuery((db, keyId: string, accountId: string, day: string) =>
  db
    .insertInto('usage_daily')
    .values({ key_id: keyId, account_id: accountId, day, captures: 0, cache_hits: 1 })
    .onConflict((c) => c.columns(['key_id', 'day']).doUpdateSet((eb) => ({ cache_hits: eb(eb.ref('usage_daily.cache_hits'), '+', 1) }))),
);

/** Every authenticated request reads it (the X-Quota-* headers). */
const usedInPeriod = preparedQuery((db, accountId: string, period: string) =>
  db.selectFrom('quota_usage').select('used').where('account_id', '=', accountId).where('period', '=', period),
);

/** Successful captures recorded per day and per key, for the dashboard. */
export class UsageStore {
  constructor(private readonly db: Db) {}

  /** Captures per day from `fromDay` to `toDay` (inclusive, YYYY-MM-DD); days without any are left out. */
  async perDay(accountId: string, fromDay: string, toDay: string): Promise<DayUsage[]> {
    const rows = await this.db.kysely
      .selectFrom('usage_daily')
      .select((eb) => ['day', eb.fn.sum<number>('captures').as('captures'), eb.fn.sum<number>('cache_hits').as('cache_hits')])
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy('day')
      .orderBy('day')
      .execute();
    return rows.map((r) => ({ day: r.day, captures: Number(r.captures), cacheHits: Number(r.cache_hits) }));
  }

  /** Captures per key from `fromDay` to `toDay` (inclusive); keys without any are left out. */
  async perKey(accountId: string, fromDay: string, toDay: string): Promise<KeyUsage[]> {
    const rows = await this.db.kysely
      .selectFrom('usage_daily')
      .select((eb) => ['key_id', eb.fn.sum<number>('captures').as('captures')])
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy('key_id')
      .execute();
    return rows.map((r) => ({ keyId: r.key_id, captures: Number(r.captures) }));
  }

  /** Counts one answer from the capture cache (not charged) for the key's day. */
  countCacheHit(input: { keyId: string; accountId: string; at: Date }): Promise<void> {
    return recordCacheHit(this.db.kysely, input);
  }

  /** The durable count of successful captures of the account in the period. */
  async used(accountId: string, period: Period): Promise<number> {
    const [row] = await usedInPeriod(this.db.kysely, accountId, period.id);
    return row?.used ?? 0;
  }
}
