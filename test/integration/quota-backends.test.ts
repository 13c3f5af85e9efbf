import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/accounts/account-store.js';
import { periodOf } from '../../src/usage/period.js';
import type { AccountServices } from '../../src/accounts/services.js';
import { RESERVATION_TTL_MS, type QuotaDecision } from '../../src/ratelimit/quota-store.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';

/**
 * The limit stores on every backend there is (SQLite; Postgres; Postgres + Redis): quota reservations
 * exact under concurrency, expiring when an instance dies, concurrency leases, request counting.
 */

describe.each(BACKENDS)('on %s', (backend) => {
  let place: TestPlace;
  let services: AccountServices;
  let seq = 0;

  beforeAll(async () => {
    place = await testPlace(backend);
    services = await place.open();
  });

  afterAll(async () => {
    await place?.cleanup();
  });

  /** A fresh account with one key, so tests do not share counters. */
  async function freshAccount(): Promise<{ account: Account; keyId: string }> {
    const created = await services.accounts.create({ email: `quota${++seq}@example.com`, plan: 'scale' });
    if (!created.ok) throw new Error(created.message);
    const { record } = await services.keys.create({ name: 'k', accountId: created.value.id });
    return { account: created.value, keyId: record.id };
  }

  const granted = (ds: QuotaDecision[]) => ds.filter((d) => d.granted);

  it('grants exactly `limit` of many concurrent reservations, and no more after commits and releases', async () => {
    const { account, keyId } = await freshAccount();
    const now = new Date();
    const period = periodOf(now);
    const ask = () => services.limits.quota.reserve({ accountId: account.id, keyId, limit: 7, period, now });
    const first = granted(await Promise.all(Array.from({ length: 40 }, ask)));
    expect(first).toHaveLength(7);
    // 3 succeed and are charged, 4 fail and are released.
    const results = await Promise.all(first.slice(0, 3).map((d) => d.granted && services.limits.quota.commit(d.reservation, now)));
    expect(results.map(Number).sort()).toEqual([1, 2, 3]);
    await Promise.all(first.slice(3).map((d) => d.granted && services.limits.quota.release(d.reservation)));
    expect(await services.limits.quota.used(account.id, period)).toBe(3);
    const second = granted(await Promise.all(Array.from({ length: 40 }, ask)));
    expect(second).toHaveLength(4);
    await Promise.all(second.map((d) => d.granted && services.limits.quota.commit(d.reservation, now)));
    expect(await services.limits.quota.used(account.id, period)).toBe(7);
    const refused = await ask();
    expect(refused).toEqual({ granted: false, used: 7, inFlight: 0 });
    // The durable record agrees: per account per period, and per key per day.
    expect(await services.usage.used(account.id, period)).toBe(7);
    const day = now.toISOString().slice(0, 10);
    expect(await services.usage.perKey(account.id, day, day)).toEqual([{ keyId, captures: 7 }]);
  });

  it('stops counting a reservation its instance never settled once it expires', async () => {
    const { account, keyId } = await freshAccount();
    const t0 = new Date();
    const period = periodOf(t0);
    const held = await services.limits.quota.reserve({ accountId: account.id, keyId, limit: 1, period, now: t0 });
    expect(held.granted).toBe(true);
    const meanwhile = await services.limits.quota.reserve({ accountId: account.id, keyId, limit: 1, period, now: t0 });
    expect(meanwhile).toMatchObject({ granted: false, used: 0, inFlight: 1 });
    const later = new Date(t0.getTime() + RESERVATION_TTL_MS + 1000);
    const after = await services.limits.quota.reserve({ accountId: account.id, keyId, limit: 1, period: periodOf(t0), now: later });
    expect(after.granted).toBe(true);
  });

  it('hands out at most `limit` concurrency leases, and frees each once', async () => {
    const { account } = await freshAccount();
    const leases = await Promise.all(Array.from({ length: 20 }, () => services.limits.concurrency.acquire(account.id, 4)));
    const held = leases.filter((l) => l !== null);
    expect(held).toHaveLength(4);
    expect(await services.limits.concurrency.inUse(account.id)).toBe(4);
    await held[0]!.release();
    await held[0]!.release();
    expect(await services.limits.concurrency.inUse(account.id)).toBe(3);
    expect(await services.limits.concurrency.acquire(account.id, 4)).not.toBeNull();
    expect(await services.limits.concurrency.acquire(account.id, 4)).toBeNull();
  });

  it('counts requests per key in a window and refuses past the limit', async () => {
    const key = `acct-${backend}-${++seq}`;
    const states = await Promise.all(Array.from({ length: 8 }, () => services.limits.rate.consume(key, 5, 60)));
    expect(states.filter((s) => s.allowed)).toHaveLength(5);
    const peek = await services.limits.rate.peek(key, 5, 60);
    expect(peek).toMatchObject({ limit: 5, remaining: 0, allowed: false });
    expect(peek.resetSeconds).toBeGreaterThan(0);
    expect(peek.resetSeconds).toBeLessThanOrEqual(60);
    await services.limits.rate.reset(key, 5, 60);
    expect((await services.limits.rate.consume(key, 5, 60)).remaining).toBe(4);
  });

  it.runIf(backend === 'postgres+redis')('rebuilds the Redis quota counter from the database when Redis lost it', async () => {
    const { account, keyId } = await freshAccount();
    const now = new Date();
    const period = periodOf(now);
    for (let i = 0; i < 3; i++) {
      const d = await services.limits.quota.reserve({ accountId: account.id, keyId, limit: 4, period, now });
      if (!d.granted) throw new Error('refused');
      await services.limits.quota.commit(d.reservation, now);
    }
    const { Redis } = await import('ioredis');
    const client = new Redis(process.env.SHUTTER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = await client.keys(`${place.redisPrefix}quota:{${account.id}}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await client.del(...keys);
    client.disconnect();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => services.limits.quota.reserve({ accountId: account.id, keyId, limit: 4, period, now })),
    );
    expect(granted(results)).toHaveLength(1);
    expect(await services.limits.quota.used(account.id, period)).toBe(3);
  });
});
