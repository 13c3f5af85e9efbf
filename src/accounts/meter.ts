import type { Account } from './account-store.js';
import type { ApiKeyRecord } from './key-store.js';
import { periodOf, secondsUntil, type Period } from '../usage/period.js';
import type { Plan } from './plans.js';
import { AppError } from '../errors/app-error.js';
import type { Limits } from '../ratelimit/limits.js';
import type { RateState } from '../ratelimit/rate-limiter.js';
import type { Reservation } from '../ratelimit/quota-store.js';

/** Who is calling: the key, its account and the account's plan. */
export interface Caller {
  key: ApiKeyRecord;
  account: Account;
  plan: Plan;
}

/** What admitting a request found out, for its response headers and /v1/status. */
export interface Admission {
  headers: Record<string, string>;
  rate: RateState;
  /** Successful captures this period so far. */
  used: number;
  period: Period;
}

/** The rate limit counts requests per minute. */
export const RATE_WINDOW_SECONDS = 60;
/** How soon to retry when the quota left is held by captures in flight (they finish or fail soon). */
const IN_FLIGHT_RETRY_SECONDS = 2;

/** `RateLimit-*` headers (IETF draft, delta seconds). */
export function rateHeaders(rate: RateState): Record<string, string> {
  return {
    'ratelimit-limit': String(rate.limit),
    'ratelimit-remaining': String(rate.remaining),
    'ratelimit-reset': String(rate.resetSeconds),
  };
}

/** `X-Quota-*` headers: the plan's monthly quota, what is left, seconds until the next period. */
export function quotaHeaders(plan: Plan, used: number, period: Period, now: Date): Record<string, string> {
  return {
    'x-quota-limit': String(plan.monthlyQuota),
    'x-quota-remaining': String(Math.max(0, plan.monthlyQuota - used)),
    'x-quota-reset': String(secondsUntil(period.end, now)),
  };
}

/** Applies the plan's limits to one caller's requests and captures. */
export class Meter {
  constructor(
    private readonly limits: Limits,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Counts the request against the rate limit; throws 429 rate_limited (with the headers) past it. */
  async admit(caller: Caller): Promise<Admission> {
    const { account, plan } = caller;
    const now = this.clock();
    const period = periodOf(now);
    const [rate, used] = await Promise.all([
      this.limits.rate.consume(account.id, plan.ratePerMinute, RATE_WINDOW_SECONDS),
      this.limits.quota.used(account.id, period),
    ]);
    const headers = { ...rateHeaders(rate), ...quotaHeaders(plan, used, period, now) };
    if (!rate.allowed) {
      throw new AppError(
        'rate_limited',
        `the ${plan.name} plan allows ${plan.ratePerMinute} requests per minute; retry in ${rate.resetSeconds} s`,
        { retryAfterSeconds: rate.resetSeconds, headers },
      );
    }
    return { headers, rate, used, period };
  }

  /**
   * Holds `count` quota units for queued jobs (DESIGN.md §4.3: reserved when queued, committed on
   * success), all or none: 429 quota_exceeded when the quota left cannot cover them all.
   */
  async hold(caller: Caller, count: number, ttlMs: number): Promise<Reservation[]> {
    const { account, plan, key } = caller;
    const now = this.clock();
    const period = periodOf(now);
    const held: Reservation[] = [];
    for (let i = 0; i < count; i++) {
      const decision = await this.limits.quota.reserve({
        accountId: account.id,
        keyId: key.id,
        limit: plan.monthlyQuota,
        period,
        now,
        ttlMs,
      });
      if (decision.granted) {
        held.push(decision.reservation);
        continue;
      }
      await this.release(held);
      throw new AppError(
        'quota_exceeded',
        `the ${plan.name} plan's quota for ${period.id} has ${Math.max(0, plan.monthlyQuota - decision.used - decision.inFlight + held.length)} ` +
          `captures left (some may be held by jobs and captures in progress); ${count} were asked for`,
        { retryAfterSeconds: secondsUntil(period.end, now), headers: quotaHeaders(plan, decision.used, period, now) },
      );
    }
    return held;
  }

  /** Gives held units back (jobs that were not queued after all). */
  async release(held: readonly Reservation[]): Promise<void> {
    await Promise.all(held.map((r) => this.limits.quota.release(r).catch(() => undefined)));
  }

  /**
   * Runs a capture within the account's concurrency limit and quota. The quota unit is reserved
   * first and only committed when `run` succeeds: a failed capture is not charged. `onCharged`
   * gets the quota headers as they stand after the charge.
   */
  async charge<T>(caller: Caller, run: () => Promise<T>, onCharged: (headers: Record<string, string>) => void): Promise<T> {
    const { account, plan, key } = caller;
    const lease = await this.limits.concurrency.acquire(account.id, plan.concurrency);
    if (!lease) {
      throw new AppError(
        'concurrency_limited',
        `the ${plan.name} plan runs ${plan.concurrency} captures at a time; retry when one has finished`,
        { retryAfterSeconds: 1 },
      );
    }
    try {
      const now = this.clock();
      const period = periodOf(now);
      const decision = await this.limits.quota.reserve({ accountId: account.id, keyId: key.id, limit: plan.monthlyQuota, period, now });
      if (!decision.granted) {
        const usedUp = decision.used >= plan.monthlyQuota;
        throw new AppError(
          'quota_exceeded',
          usedUp
            ? `the ${plan.monthlyQuota} captures of the ${plan.name} plan for ${period.id} are used up; the quota resets at ${period.end.toISOString()}`
            : `the rest of this month's quota is held by captures in progress; retry in a moment`,
          {
            retryAfterSeconds: usedUp ? secondsUntil(period.end, now) : IN_FLIGHT_RETRY_SECONDS,
            headers: quotaHeaders(plan, decision.used, period, now),
          },
        );
      }
      let result: T;
      try {
        result = await run();
      } catch (error) {
        // Not charged. Should the release itself fail, the reservation expires on its own.
        await this.limits.quota.release(decision.reservation).catch(() => undefined);
        throw error;
      }
      const used = await this.limits.quota.commit(decision.reservation, this.clock());
      onCharged(quotaHeaders(plan, used, period, this.clock()));
      return result;
    } finally {
      await lease.release();
    }
  }
}
