import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
import { DEFAULT_PLANS, Plans } from '../../src/accounts/plans.js';
import { AppError } from '../../src/errors/app-error.js';
import { buildTestApp, type TestApp, type TestAppOverrides } from '../helpers/stub-engine.js';

/**
 * Plans, rate limits, concurrency and the monthly quota over HTTP (stub engine, SQLite in memory,
 * in-memory limits): the 429s with Retry-After, the headers on every authenticated response, and a
 * quota that admits exactly N successful captures under concurrency.
 */

const PLANS = new Plans([
  ...DEFAULT_PLANS,
  { name: 'tiny', maxKeys: 2, monthlyQuota: 5, ratePerMinute: 1000, concurrency: 50, maxQueuedJobs: 100 },
  { name: 'narrow', maxKeys: 2, monthlyQuota: 1000, ratePerMinute: 1000, concurrency: 3, maxQueuedJobs: 100 },
]);
const TAKE = '/v1/take?url=https%3A%2F%2Fexample.com%2F';
const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
const QUOTA_HEADERS = ['x-quota-limit', 'x-quota-remaining', 'x-quota-reset'];

let t: TestApp;

async function build(overrides: TestAppOverrides): Promise<TestApp> {
  t = await buildTestApp({ plans: PLANS, ...overrides });
  return t;
}

afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
});

const take = (key = t.key, url = TAKE) => t.app.inject({ method: 'GET', url, headers: { apikey: key } });
const status = (key = t.key) => t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: key } });
const codeOf = (res: LightMyRequestResponse) => (res.statusCode === 200 ? 200 : (res.json() as { error: { code: string } }).error.code);
const count = <T>(list: T[], value: T) => list.filter((x) => x === value).length;

describe('headers on every authenticated response', () => {
  it('carries RateLimit-* and X-Quota-* on captures, status, 4xx and 5xx answers alike', async () => {
    await build({ plan: 'tiny' });
    const ok = await take();
    const bad = await t.app.inject({ method: 'GET', url: `${TAKE}&quality=500`, headers: { apikey: t.key } });
    const stat = await status();
    t.engine.error = new AppError('navigation_failed', 'no such host');
    const failed = await take();
    expect([ok.statusCode, bad.statusCode, stat.statusCode, failed.statusCode]).toEqual([200, 400, 200, 422]);
    for (const res of [ok, bad, stat, failed]) {
      for (const name of [...RATE_HEADERS, ...QUOTA_HEADERS]) expect(res.headers[name], name).toMatch(/^\d+$/);
      expect(res.headers['x-quota-limit']).toBe('5');
      expect(res.headers['ratelimit-limit']).toBe('1000');
    }
  });

  it('leaves them off answers to callers without a valid key', async () => {
    await build({});
    const res = await take('shk_not-a-key');
    expect(res.statusCode).toBe(401);
    for (const name of [...RATE_HEADERS, ...QUOTA_HEADERS]) expect(res.headers[name]).toBeUndefined();
  });

  it('counts RateLimit-Remaining down per request and X-Quota-Remaining down per successful capture only', async () => {
    await build({ plan: 'tiny' });
    const first = await take();
    expect(first.headers['x-quota-remaining']).toBe('4');
    expect(first.headers['ratelimit-remaining']).toBe('999');
    t.engine.error = new AppError('capture_timeout', 'slow');
    const failed = await take();
    expect(failed.statusCode).toBe(504);
    expect(failed.headers['x-quota-remaining']).toBe('4');
    expect(failed.headers['ratelimit-remaining']).toBe('998');
    t.engine.error = undefined;
    const second = await take();
    expect(second.headers['x-quota-remaining']).toBe('3');
    const stat = (await status()).json();
    expect(stat.usage).toMatchObject({ used: 2, limit: 5, remaining: 3 });
  });
});

describe('rate limit (requests per minute per account)', () => {
  it('answers 429 rate_limited with Retry-After past the plan rate, without capturing', async () => {
    await build({ plan: 'free' });
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await status();
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const limited = await take();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-quota-remaining']).toBe('100');
    expect(t.engine.calls).toHaveLength(0);
  });

  it('is shared by every key of the account', async () => {
    await build({ plan: 'basic' });
    const other = await t.accounts.keyManager.issue(t.account, 'second');
    if (!other.ok) throw new Error(other.message);
    for (let i = 0; i < 20; i++) expect((await status()).statusCode).toBe(200);
    for (let i = 0; i < 20; i++) expect((await status(other.value.key)).statusCode).toBe(200);
    const res = await status(other.value.key);
    expect(res.statusCode).toBe(429);
    expect((await status()).statusCode).toBe(429);
  });
});

describe('concurrency (captures at once per account)', () => {
  it('answers 429 concurrency_limited with Retry-After beyond the plan, and frees the slots after', async () => {
    await build({ plan: 'narrow', stub: { delayMs: 150 } });
    const responses = await Promise.all(Array.from({ length: 6 }, () => take()));
    const codes = responses.map(codeOf);
    expect(count(codes, 200)).toBe(3);
    expect(count(codes, 'concurrency_limited')).toBe(3);
    for (const res of responses.filter((r) => r.statusCode === 429)) {
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['x-quota-limit']).toBe('1000');
    }
    expect(t.engine.calls).toHaveLength(3);
    expect((await take()).statusCode).toBe(200);
  });

  it('shows the slots in use in /v1/status', async () => {
    await build({ plan: 'narrow', stub: { delayMs: 200 } });
    const running = take();
    // The engine is called once the slot is held.
    await expect.poll(() => t.engine.calls.length).toBe(1);
    expect((await status()).json().concurrency).toEqual({ limit: 3, in_use: 1 });
    await running;
    expect((await status()).json().concurrency).toEqual({ limit: 3, in_use: 0 });
  });

  it('frees the slot of a capture that failed', async () => {
    await build({ plan: 'narrow' });
    t.engine.error = new AppError('navigation_failed', 'refused');
    for (let i = 0; i < 5; i++) expect((await take()).statusCode).toBe(422);
    t.engine.error = undefined;
    expect((await take()).statusCode).toBe(200);
  });
});

describe('monthly quota', () => {
  it('admits exactly N successful captures out of many concurrent requests', async () => {
    await build({ plan: 'tiny', stub: { delayMs: 30 } });
    const codes = (await Promise.all(Array.from({ length: 25 }, () => take()))).map(codeOf);
    expect(count(codes, 200)).toBe(5);
    expect(count(codes, 'quota_exceeded')).toBe(20);
    expect(t.engine.calls).toHaveLength(5);
    const after = await take();
    expect(codeOf(after)).toBe('quota_exceeded');
    expect(after.headers['x-quota-remaining']).toBe('0');
    expect((await status()).json().usage).toMatchObject({ used: 5, remaining: 0 });
  });

  it('does not charge failed captures: N successes still fit after failures', async () => {
    await build({ plan: 'tiny' });
    for (const error of [
      new AppError('navigation_failed', 'dns'),
      new AppError('capture_timeout', 'slow'),
      new AppError('browser_unavailable', 'down', { retryAfterSeconds: 5 }),
      new Error('engine bug'),
    ]) {
      t.engine.error = error;
      expect((await take()).statusCode).toBeGreaterThanOrEqual(422);
    }
    t.engine.error = undefined;
    for (let i = 0; i < 5; i++) expect((await take()).statusCode).toBe(200);
    expect(codeOf(await take())).toBe('quota_exceeded');
  });

  it('stays exact when concurrent captures fail and succeed in a mix', async () => {
    await build({ plan: 'tiny', stub: { delayMs: 20 } });
    const engine = t.engine;
    const original = engine.capture.bind(engine);
    let n = 0;
    engine.capture = async (options, timings) => {
      // Every other capture fails after holding its reservation for a while.
      if (n++ % 2 === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new AppError('navigation_failed', 'flaky');
      }
      return original(options, timings);
    };
    let successes = 0;
    for (let wave = 0; wave < 10; wave++) {
      const codes = (await Promise.all(Array.from({ length: 8 }, () => take()))).map(codeOf);
      successes += count(codes, 200);
    }
    expect(successes).toBe(5);
    expect(await t.accounts.limits.quota.used(t.account.id, periodOf(new Date()))).toBe(5);
  });

  it('answers quota_exceeded with Retry-After until the period ends, then admits again', async () => {
    let now = new Date('2031-01-31T23:59:00.000Z');
    await build({ plan: 'tiny', clock: () => now });
    for (let i = 0; i < 5; i++) expect((await take()).statusCode).toBe(200);
    const refused = await take();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('quota_exceeded');
    expect(refused.json().error.message).toContain('2031-02-01T00:00:00.000Z');
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['x-quota-reset']).toBe('60');
    expect(refused.headers['x-quota-remaining']).toBe('0');
    now = new Date('2031-02-01T00:00:01.000Z');
    const next = await take();
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-quota-remaining']).toBe('4');
    expect((await status()).json().usage).toEqual({
      period_start: '2031-02-01T00:00:00.000Z',
      period_end: '2031-03-01T00:00:00.000Z',
      used: 1,
      limit: 5,
      remaining: 4,
    });
  });

  it('asks for a short retry when the rest of the quota is held by captures in flight', async () => {
    await build({ plan: 'tiny', stub: { delayMs: 150 } });
    const running = Array.from({ length: 5 }, () => take());
    await expect.poll(() => t.engine.calls.length).toBe(5);
    const refused = await take();
    expect(refused.json().error.code).toBe('quota_exceeded');
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.headers['x-quota-remaining']).toBe('5');
    expect((await Promise.all(running)).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
  });

  it('records usage per key per day', async () => {
    await build({ plan: 'basic' });
    const second = await t.accounts.keyManager.issue(t.account, 'second');
    if (!second.ok) throw new Error(second.message);
    await take();
    await take();
    await take(second.value.key);
    const today = new Date().toISOString().slice(0, 10);
    const perKey = await t.accounts.usage.perKey(t.account.id, today, today);
    expect(new Map(perKey.map((k) => [k.keyId, k.captures]))).toEqual(
      new Map([
        [t.record.id, 2],
        [second.value.record.id, 1],
      ]),
    );
    expect(await t.accounts.usage.perDay(t.account.id, today, today)).toEqual([{ day: today, captures: 3, cacheHits: 0 }]);
  });
});

describe('GET /v1/status', () => {
  it("has DESIGN.md's shape: key, plan, usage, rate limit, concurrency, service", async () => {
    await build({ plan: 'basic' });
    await take();
    const res = await status();
    const body = res.json();
    expect(Object.keys(body)).toEqual(['status', 'version', 'key', 'plan', 'usage', 'rate_limit', 'concurrency', 'service', 'countries']);
    expect(body.plan).toEqual({
      name: 'basic',
      keys_allowed: 5,
      monthly_quota: 2000,
      rate_per_minute: 40,
      concurrency: 5,
      max_queued_jobs: 100,
    });
    expect(body.usage).toMatchObject({ used: 1, limit: 2000, remaining: 1999 });
    expect(Date.parse(body.usage.period_end)).toBeGreaterThan(Date.parse(body.usage.period_start));
    expect(body.rate_limit).toEqual({ limit: 40, remaining: 38, reset: Number(res.headers['ratelimit-reset']) });
    expect(body.concurrency).toEqual({ limit: 5, in_use: 0 });
    expect(body.service).toEqual({ browser: 'StubChromium/1.0', pool: { size: 2, busy: 0, queued: 0 } });
    expect(body.key.id).toBe(t.record.id);
  });
});
