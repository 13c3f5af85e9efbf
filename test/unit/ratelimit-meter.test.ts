import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/accounts/account-store.js';
import type { ApiKeyRecord } from '../../src/accounts/key-store.js';
import type { Plan } from '../../src/accounts/plans.js';
import { createAccountServices } from '../../src/accounts/services.js';
import { openDatabase } from '../../src/db/database.js';
import { AppError } from '../../src/errors/app-error.js';
import { quotaHeaders, rateHeaders, type Caller } from '../../src/accounts/meter.js';

/** The meter alone: headers, what is charged, and that no slot or reservation leaks on any path. */

const PLAN: Plan = { name: 'unit', maxKeys: 1, monthlyQuota: 2, ratePerMinute: 100, concurrency: 1, maxQueuedJobs: 100 };

async function setup(now = new Date('2032-05-20T12:00:00.000Z')) {
  const db = await openDatabase({ sqliteFile: ':memory:' });
  const services = createAccountServices({ db, clock: () => now });
  const created = await services.accounts.create({ email: 'meter@example.com', plan: 'free' });
  if (!created.ok) throw new Error(created.message);
  const { record } = await services.keys.create({ name: 'k', accountId: created.value.id });
  const caller: Caller = { key: record as ApiKeyRecord, account: created.value as Account, plan: PLAN };
  return { services, caller };
}

describe('meter', () => {
  it('builds the RateLimit-* and X-Quota-* headers', () => {
    expect(rateHeaders({ limit: 10, remaining: 3, resetSeconds: 42, allowed: true })).toEqual({
      'ratelimit-limit': '10',
      'ratelimit-remaining': '3',
      'ratelimit-reset': '42',
    });
    const now = new Date('2032-05-31T23:00:00.000Z');
    const period = { id: '2032-05', start: new Date('2032-05-01T00:00:00Z'), end: new Date('2032-06-01T00:00:00Z') };
    expect(quotaHeaders(PLAN, 5, period, now)).toEqual({ 'x-quota-limit': '2', 'x-quota-remaining': '0', 'x-quota-reset': '3600' });
  });

  it('charges only successful runs and reports the quota left after each', async () => {
    const { services, caller } = await setup();
    const seen: string[] = [];
    await expect(
      services.meter.charge(
        caller,
        async () => 'a',
        (h) => seen.push(h['x-quota-remaining']!),
      ),
    ).resolves.toBe('a');
    await expect(
      services.meter.charge(
        caller,
        async () => Promise.reject(new AppError('navigation_failed', 'x')),
        () => seen.push('charged!'),
      ),
    ).rejects.toMatchObject({ code: 'navigation_failed' });
    await services.meter.charge(
      caller,
      async () => 'b',
      (h) => seen.push(h['x-quota-remaining']!),
    );
    expect(seen).toEqual(['1', '0']);
    await expect(
      services.meter.charge(
        caller,
        async () => 'c',
        () => undefined,
      ),
    ).rejects.toMatchObject({
      code: 'quota_exceeded',
      extra: { retryAfterSeconds: 11.5 * 86_400 },
    });
    await services.close();
  });

  it('gives the concurrency slot back on success, failure and quota refusal alike', async () => {
    const { services, caller } = await setup();
    const inUse = () => services.limits.concurrency.inUse(caller.account.id);
    await services.meter.charge(
      caller,
      async () => undefined,
      () => undefined,
    );
    expect(await inUse()).toBe(0);
    await services.meter
      .charge(
        caller,
        async () => Promise.reject(new Error('boom')),
        () => undefined,
      )
      .catch(() => undefined);
    expect(await inUse()).toBe(0);
    await services.meter.charge(
      caller,
      async () => undefined,
      () => undefined,
    );
    await services.meter
      .charge(
        caller,
        async () => undefined,
        () => undefined,
      )
      .catch(() => undefined);
    expect(await inUse()).toBe(0);
    const refusal = await services.meter
      .charge(
        caller,
        async () => undefined,
        () => undefined,
      )
      .catch((e: AppError) => e);
    expect(refusal).toMatchObject({ code: 'quota_exceeded' });
    expect(await inUse()).toBe(0);
    await services.close();
  });

  it('refuses a second capture at once with concurrency_limited while the first runs', async () => {
    const { services, caller } = await setup();
    let finish!: () => void;
    const first = services.meter.charge(
      caller,
      () => new Promise<void>((resolve) => (finish = resolve)),
      () => undefined,
    );
    // The capture runs (its slot is held) once finish is set.
    await expect.poll(() => finish).toBeDefined();
    await expect(
      services.meter.charge(
        caller,
        async () => undefined,
        () => undefined,
      ),
    ).rejects.toMatchObject({
      code: 'concurrency_limited',
      extra: { retryAfterSeconds: 1 },
    });
    finish();
    await first;
    await services.close();
  });

  it('admits up to the rate and then throws rate_limited carrying the headers', async () => {
    const { services, caller } = await setup();
    const tight = { ...caller, plan: { ...PLAN, ratePerMinute: 2 } };
    expect((await services.meter.admit(tight)).headers['ratelimit-remaining']).toBe('1');
    expect((await services.meter.admit(tight)).headers['ratelimit-remaining']).toBe('0');
    const error = await services.meter.admit(tight).catch((e: AppError) => e);
    expect(error).toMatchObject({ code: 'rate_limited', extra: { headers: { 'ratelimit-remaining': '0', 'x-quota-limit': '2' } } });
    await services.close();
  });
});
