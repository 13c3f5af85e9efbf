import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
import { DEFAULT_PLANS, Plans } from '../../src/accounts/plans.js';
import type { AccountServices } from '../../src/accounts/services.js';
import type { Timings } from '../../src/capture/timings.js';
import { AppError } from '../../src/errors/app-error.js';
import { loadConfig } from '../../src/config/load.js';
import { createService } from '../../src/service.js';
import type { TakeOptions } from '../../src/options/schema.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';
import { StubEngine } from '../helpers/stub-engine.js';

/**
 * Two service instances (two apps, each with its own connections) on one Postgres (and one Redis):
 * under concurrent requests spread over both, with captures failing at random, the quota of N
 * admits exactly N successful captures, and the database records exactly N.
 */

const QUOTA = 25;
const PLANS = new Plans([
  ...DEFAULT_PLANS,
  { name: 'shared', maxKeys: 5, monthlyQuota: QUOTA, ratePerMinute: 100_000, concurrency: 1000, maxQueuedJobs: 100 },
]);

/** Fails captures of URLs containing "fail", after holding the reservation as long as a real one. */
class FlakyEngine extends StubEngine {
  override async capture(options: TakeOptions, timings: Timings) {
    if (options.url?.includes('fail')) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      throw new AppError('navigation_failed', 'the page did not load');
    }
    return super.capture(options, timings);
  }
}

const multiInstance = BACKENDS.filter((b) => b !== 'sqlite');

describe.runIf(multiInstance.length > 0).each(multiInstance)('two instances on %s', (backend) => {
  let place: TestPlace;
  const instances: Array<{ app: FastifyInstance; services: AccountServices; engine: FlakyEngine }> = [];
  let key = '';
  let accountId = '';

  beforeAll(async () => {
    place = await testPlace(backend);
    for (let i = 0; i < 2; i++) {
      const services = await place.open({ plans: PLANS });
      const engine = new FlakyEngine({ delayMs: 15 });
      const { app } = await createService(loadConfig({}), { engine, accounts: services, store: null, logger: pino({ level: 'silent' }) });
      await app.ready();
      instances.push({ app, services, engine });
    }
    const created = await instances[0]!.services.accounts.create({ email: 'shared@example.com', plan: 'shared' });
    if (!created.ok) throw new Error(created.message);
    accountId = created.value.id;
    const issued = await instances[0]!.services.keyManager.issue(created.value, 'load');
    if (!issued.ok) throw new Error(issued.message);
    key = issued.value.key;
  });

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.app.close()));
    await place?.cleanup();
  });

  it(`admits exactly ${QUOTA} successful captures across both instances`, async () => {
    const codes: Array<number | string> = [];
    const successesBy = [0, 0];
    let usedUp = false;
    for (let wave = 0; wave < 20 && !usedUp; wave++) {
      const requests = Array.from({ length: 24 }, (_, i) => {
        const which = i % 2;
        const url = i % 3 === 0 ? 'https://example.com/fail' : `https://example.com/ok/${wave}/${i}`;
        return instances[which]!.app.inject({
          method: 'GET',
          url: `/v1/take?url=${encodeURIComponent(url)}`,
          headers: { apikey: key },
        }).then((res: LightMyRequestResponse) => {
          if (res.statusCode === 200) successesBy[which]!++;
          const code = res.statusCode === 200 ? 200 : (res.json() as { error: { code: string } }).error.code;
          // A refusal with a long Retry-After means the quota is used up, not merely held by captures in flight.
          if (code === 'quota_exceeded' && Number(res.headers['retry-after']) > 2) usedUp = true;
          return code;
        });
      });
      codes.push(...(await Promise.all(requests)));
    }
    expect(usedUp).toBe(true);
    expect(codes.filter((c) => c === 200)).toHaveLength(QUOTA);
    expect(new Set(codes)).toEqual(new Set([200, 'navigation_failed', 'quota_exceeded']));
    // Both instances did real work; neither kept its own count.
    expect(successesBy[0]).toBeGreaterThan(0);
    expect(successesBy[1]).toBeGreaterThan(0);

    const period = periodOf(new Date());
    for (const { services } of instances) {
      expect(await services.usage.used(accountId, period)).toBe(QUOTA);
      expect(await services.limits.quota.used(accountId, period)).toBe(QUOTA);
    }
    const today = new Date().toISOString().slice(0, 10);
    const perDay = await instances[1]!.services.usage.perDay(accountId, today, today);
    expect(perDay).toEqual([{ day: today, captures: QUOTA, cacheHits: 0 }]);

    // And the next request, on either instance, is refused.
    for (const { app } of instances) {
      const res = await app.inject({ method: 'GET', url: '/v1/take?url=https%3A%2F%2Fexample.com%2F', headers: { apikey: key } });
      expect(res.statusCode).toBe(429);
      expect(res.headers['x-quota-remaining']).toBe('0');
    }
  });

  it.runIf(backend === 'postgres+redis')('shares the rate limit and concurrency across instances in Redis', async () => {
    const [a, b] = instances;
    const lease = await a!.services.limits.concurrency.acquire(accountId, 1000);
    expect(await b!.services.limits.concurrency.inUse(accountId)).toBe(1);
    await lease!.release();
    await a!.services.limits.rate.consume(`shared-${accountId}`, 2, 60);
    await b!.services.limits.rate.consume(`shared-${accountId}`, 2, 60);
    expect((await a!.services.limits.rate.consume(`shared-${accountId}`, 2, 60)).allowed).toBe(false);
  });
});
