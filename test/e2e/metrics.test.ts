import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { parsePrometheus, sampleSum, type Sample } from '../helpers/prometheus.js';
import { startService, type Service } from './harness.js';

/**
 * GET /metrics on real Chromium (issue 20, DESIGN.md §4.4): the counters move by exactly what the
 * captures did, the token is enforced, and every series the Grafana dashboard reads is there.
 */
const TOKEN = 'metrics-token-0123456789abcdef';
let service: Service;

beforeAll(async () => {
  service = await startService({
    // Nothing but the loopback fixture server is reachable: 10.9.8.7 is refused by the egress guard.
    allowedPrivateNetworks: '127.0.0.1/32',
    store: true,
    resolve: staticResolver({}),
    // The third render replaces the browser: one capture_budget restart.
    env: { SHUTTER_METRICS_TOKEN: TOKEN, SHUTTER_BROWSER_MAX_CAPTURES: '3' },
  });
});
afterAll(async () => {
  await service?.close();
});

const take = (params: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: `/v1/take?${new URLSearchParams(params)}`, headers: { apikey: service.apiKey } });

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: res.body, samples: parsePrometheus(res.body) };
}

describe('GET /metrics', () => {
  it('refuses a scrape without the token, or with a wrong one, with 401 JSON; answers the right one', async () => {
    const none = await service.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.json()).toMatchObject({ error: { code: 'invalid_metrics_token', message: expect.stringContaining('Bearer') } });
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Basic ${TOKEN}`, 'Bearer ']) {
      const res = await service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().error.code).toBe('invalid_metrics_token');
    }
    // An API key is not the metrics token.
    const key = await service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${service.apiKey}` } });
    expect(key.statusCode).toBe(401);
    await scrape();
  });

  it('counts captures by format and outcome, phase durations, cache hits and misses, egress refusals and restarts exactly', async () => {
    const before = (await scrape()).samples;

    const ok = await take({ html: '<h1>ok</h1>', viewport_width: '400', viewport_height: '300' });
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(200);
    const unresolvable = await take({ url: 'http://nowhere.shutter.test/' });
    expect(unresolvable.statusCode, unresolvable.body).toBe(422);
    expect(unresolvable.json().error.code).toBe('navigation_failed');
    const forbidden = await take({ url: 'http://10.9.8.7/' });
    expect(forbidden.statusCode, forbidden.body).toBe(403);
    const miss = await take({ html: '<h1>cached</h1>', cache: '1', viewport_width: '400', viewport_height: '300' });
    expect(miss.statusCode, miss.body.slice(0, 300)).toBe(200);
    expect(miss.headers['x-shutter-cache']).toBe('MISS');
    const hit = await take({ html: '<h1>cached</h1>', cache: '1', viewport_width: '400', viewport_height: '300' });
    expect(hit.statusCode).toBe(200);
    expect(hit.headers['x-shutter-cache']).toBe('HIT');
    // A page whose image is on a private address: captured, the image refused by the egress proxy.
    const refusedImage = await take({ html: '<img src="http://10.9.8.7/pixel.png"><h1>img</h1>', format: 'jpg' });
    expect(refusedImage.statusCode, refusedImage.body.slice(0, 300)).toBe(200);

    const after = (await scrape()).samples;
    const delta = (name: string, labels: Record<string, string> = {}) => sampleSum(after, name, labels) - sampleSum(before, name, labels);

    expect(delta('shutter_captures_total', { format: 'png', outcome: 'ok' })).toBe(2);
    expect(delta('shutter_captures_total', { format: 'jpg', outcome: 'ok' })).toBe(1);
    expect(delta('shutter_captures_total', { format: 'png', outcome: 'navigation_failed' })).toBe(1);
    expect(delta('shutter_captures_total', { format: 'png', outcome: 'target_forbidden' })).toBe(1);
    // The cache hit rendered nothing.
    expect(delta('shutter_captures_total')).toBe(5);
    expect(delta('shutter_cache_total', { result: 'miss' })).toBe(1);
    expect(delta('shutter_cache_total', { result: 'hit' })).toBe(1);

    // Every render passed each phase once; the refused ones (target check, before the queue) none.
    for (const phase of ['queue', 'navigate', 'wait', 'capture']) {
      expect(delta('shutter_capture_duration_seconds_count', { format: 'png', phase }), phase).toBe(2);
      expect(delta('shutter_capture_duration_seconds_count', { format: 'jpg', phase }), phase).toBe(1);
    }
    const phases = new Set(after.filter((s) => s.name === 'shutter_capture_duration_seconds_count').map((s) => s.labels.phase));
    expect([...phases].every((p) => ['queue', 'navigate', 'wait', 'capture', 'encode'].includes(p!))).toBe(true);
    expect(delta('shutter_capture_duration_seconds_sum', { format: 'png' })).toBeGreaterThan(0);
    // A histogram's +Inf bucket is its count.
    expect(sampleSum(after, 'shutter_capture_duration_seconds_bucket', { format: 'png', phase: 'navigate', le: '+Inf' })).toBe(
      sampleSum(after, 'shutter_capture_duration_seconds_count', { format: 'png', phase: 'navigate' }),
    );

    expect(delta('shutter_egress_blocked_total', { reason: 'target' })).toBe(1);
    expect(delta('shutter_egress_blocked_total', { reason: 'page_request' })).toBe(1);
    expect(delta('shutter_egress_blocked_total', { reason: 'proxy_port' })).toBe(0);
    expect(delta('shutter_browser_restarts_total', { reason: 'capture_budget' })).toBe(1);
    expect(delta('shutter_browser_restarts_total', { reason: 'crash' })).toBe(0);
    expect(delta('shutter_limit_refusals_total')).toBe(0);
    // Idle now.
    expect(sampleSum(after, 'shutter_pool_in_use')).toBe(0);
    expect(sampleSum(after, 'shutter_queue_depth')).toBe(0);
  });

  it('labels nothing with a URL, key or account', async () => {
    const { samples } = await scrape();
    const labels = new Set(samples.filter((s) => s.name.startsWith('shutter_')).flatMap((s) => Object.keys(s.labels)));
    expect([...labels].sort()).toEqual(expect.arrayContaining(['format', 'outcome', 'phase']));
    for (const label of labels) expect(['format', 'outcome', 'phase', 'le', 'reason', 'kind', 'result']).toContain(label);
    const text = samples.map((s) => Object.values(s.labels).join(' ')).join(' ');
    expect(text).not.toContain('nowhere.shutter.test');
    expect(text).not.toContain('10.9.8.7');
    expect(text).not.toContain(service.apiKey.slice(0, 12));
  });

  it('exports every series the Grafana dashboard queries', async () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana/shutter-dashboard.json', 'utf8')) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const names = new Set(exprs.flatMap((e) => e.match(/\b(?:shutter|process|nodejs)_[a-z_]+\b/g) ?? []));
    expect(names.size).toBeGreaterThanOrEqual(10);
    const { samples } = await scrape();
    const exported = new Set(samples.map((s) => s.name));
    for (const name of names) expect(exported, name).toContain(name);
    // The labels the panels group and filter by.
    const labelsOf = (name: string) => new Set(samples.filter((s) => s.name === name).flatMap((s) => Object.keys(s.labels)));
    expect([...labelsOf('shutter_captures_total')].sort()).toEqual(['format', 'outcome']);
    expect([...labelsOf('shutter_capture_duration_seconds_bucket')].sort()).toEqual(['format', 'le', 'phase']);
    expect([...labelsOf('shutter_cache_total')]).toEqual(['result']);
    expect([...labelsOf('shutter_browser_restarts_total')]).toEqual(['reason']);
    expect([...labelsOf('shutter_egress_blocked_total')]).toEqual(['reason']);
    expect([...labelsOf('shutter_limit_refusals_total')]).toEqual(['kind']);
    // The job metrics are there before any job ran.
    expect(exported).toContain('shutter_jobs_queued');
  });
});
