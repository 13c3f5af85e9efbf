import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, Plans } from '../../src/accounts/plans.js';
import { AppError } from '../../src/errors/app-error.js';
import { parsePrometheus, sampleSum } from '../helpers/prometheus.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/**
 * GET /metrics over the HTTP layer with a stub engine (issue 20): limit refusals counted by kind
 * from the answers' error codes, outcomes of failed captures, the engine's pool read at scrape
 * time, and /metrics open when no SHUTTER_METRICS_TOKEN is set.
 */
const PLANS = new Plans([
  ...DEFAULT_PLANS,
  { name: 'tiny', maxKeys: 2, monthlyQuota: 2, ratePerMinute: 1000, concurrency: 50, maxQueuedJobs: 100 },
  { name: 'slow', maxKeys: 2, monthlyQuota: 1000, ratePerMinute: 3, concurrency: 50, maxQueuedJobs: 100 },
  { name: 'single', maxKeys: 2, monthlyQuota: 1000, ratePerMinute: 1000, concurrency: 1, maxQueuedJobs: 100 },
]);
const TAKE = '/v1/take?url=https%3A%2F%2Fexample.com%2F';

let t: TestApp;
afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
});

const take = (url = TAKE) => t.app.inject({ method: 'GET', url, headers: { apikey: t.key } });
async function samples() {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  return parsePrometheus(res.body);
}
const refusals = async (kind: string) => sampleSum(await samples(), 'shutter_limit_refusals_total', { kind });

describe('shutter_limit_refusals_total', () => {
  it('quota_exceeded: one per 429, none for the captures admitted', async () => {
    t = await buildTestApp({ plans: PLANS, plan: 'tiny' });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await take()).statusCode);
    expect(codes).toEqual([200, 200, 429, 429]);
    expect(await refusals('quota_exceeded')).toBe(2);
    expect(await refusals('rate_limited')).toBe(0);
    // The refused requests never reached the engine.
    expect(sampleSum(await samples(), 'shutter_captures_total')).toBe(2);
  });

  it('rate_limited, on any authenticated route (here /v1/status too)', async () => {
    t = await buildTestApp({ plans: PLANS, plan: 'slow' });
    for (let i = 0; i < 3; i++) expect((await take()).statusCode).toBe(200);
    expect((await take()).statusCode).toBe(429);
    expect((await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } })).statusCode).toBe(429);
    expect(await refusals('rate_limited')).toBe(2);
  });

  it('concurrency_limited, and overloaded for a full capture queue (503), also counted as that outcome', async () => {
    t = await buildTestApp({ plans: PLANS, plan: 'single', stub: { delayMs: 200 } });
    const answers = await Promise.all([take(), take(), take()]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 429, 429]);
    expect(await refusals('concurrency_limited')).toBe(2);

    t.engine.error = new AppError('overloaded', 'all capture slots are busy and the queue is full; retry shortly');
    t.engine.delayMs = 0;
    expect((await take()).statusCode).toBe(503);
    const after = await samples();
    expect(sampleSum(after, 'shutter_limit_refusals_total', { kind: 'overloaded' })).toBe(1);
    expect(sampleSum(after, 'shutter_captures_total', { format: 'png', outcome: 'overloaded' })).toBe(1);
  });

  it('leaves other errors alone: a 400 and a 401 are no limit refusal', async () => {
    t = await buildTestApp({ plans: PLANS });
    expect((await take(`${TAKE}&quality=500`)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: TAKE, headers: { apikey: 'shk_nope' } })).statusCode).toBe(401);
    expect(sampleSum(await samples(), 'shutter_limit_refusals_total')).toBe(0);
  });
});

describe('captures and the engine', () => {
  it('an error that is not an AppError counts as internal_error; the format is the one asked for', async () => {
    t = await buildTestApp();
    t.engine.error = new Error('boom');
    expect((await take(`${TAKE}&format=webp`)).statusCode).toBe(500);
    t.engine.error = new AppError('capture_timeout', 'slow');
    expect((await take(`${TAKE}&format=jpeg`)).statusCode).toBe(504);
    const after = await samples();
    expect(sampleSum(after, 'shutter_captures_total', { format: 'webp', outcome: 'internal_error' })).toBe(1);
    // The alias is the format's one name.
    expect(sampleSum(after, 'shutter_captures_total', { format: 'jpg', outcome: 'capture_timeout' })).toBe(1);
    // Phases the stub measured before failing are observed too.
    expect(sampleSum(after, 'shutter_capture_duration_seconds_count', { format: 'jpg', phase: 'queue' })).toBe(1);
  });

  it('reads the pool from the engine at each scrape', async () => {
    t = await buildTestApp();
    t.engine.engineStatus = { browser: 'x', pool: { size: 4, busy: 3, queued: 7 } };
    let after = await samples();
    expect(sampleSum(after, 'shutter_pool_in_use')).toBe(3);
    expect(sampleSum(after, 'shutter_queue_depth')).toBe(7);
    t.engine.engineStatus = {
      browser: 'x',
      pool: { size: 4, busy: 0, queued: 0 },
      restarts: { crash: 2, capture_budget: 5 },
      egressBlocked: { target: 1, page_request: 4 },
    };
    after = await samples();
    expect(sampleSum(after, 'shutter_queue_depth')).toBe(0);
    expect(sampleSum(after, 'shutter_browser_restarts_total', { reason: 'crash' })).toBe(2);
    expect(sampleSum(after, 'shutter_browser_restarts_total', { reason: 'capture_budget' })).toBe(5);
    expect(sampleSum(after, 'shutter_browser_restarts_total', { reason: 'unresponsive' })).toBe(0);
    expect(sampleSum(after, 'shutter_egress_blocked_total', { reason: 'page_request' })).toBe(4);
    // The engine's totals are not added up twice by a second scrape.
    expect(sampleSum(await samples(), 'shutter_egress_blocked_total', { reason: 'page_request' })).toBe(4);
  });

  it('serves /metrics without a token when SHUTTER_METRICS_TOKEN is unset, as Prometheus text, never cached', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('# TYPE shutter_captures_total counter');
    expect(res.body).toContain('# TYPE process_cpu_seconds_total counter');
  });
});
