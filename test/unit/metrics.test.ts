import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/observability/metrics.js';
import { parsePrometheus, sampleSum } from '../helpers/prometheus.js';

/** The Metrics object (issue 20): one registry per service, the job metrics the jobs code feeds. */
const samplesOf = async (metrics: Metrics) => parsePrometheus(await metrics.text());

describe('Metrics', () => {
  it('keeps one registry per service: two in one process neither collide nor share counts', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.captureFinished('png', 'ok', { queue: 1, navigate: 120 });
    a.cacheLookup('hit');
    expect(sampleSum(await samplesOf(a), 'shutter_captures_total')).toBe(1);
    expect(sampleSum(await samplesOf(b), 'shutter_captures_total')).toBe(0);
    expect(sampleSum(await samplesOf(b), 'shutter_cache_total', { result: 'hit' })).toBe(0);
    // Both carry the process metrics.
    for (const m of [a, b]) expect(sampleSum(await samplesOf(m), 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('observes each phase in seconds, under the format', async () => {
    const m = new Metrics();
    m.captureFinished('pdf', 'ok', { queue: 0.5, navigate: 250, wait: 1500 });
    const s = await samplesOf(m);
    expect(sampleSum(s, 'shutter_capture_duration_seconds_sum', { format: 'pdf', phase: 'navigate' })).toBeCloseTo(0.25);
    expect(sampleSum(s, 'shutter_capture_duration_seconds_bucket', { format: 'pdf', phase: 'wait', le: '1' })).toBe(0);
    expect(sampleSum(s, 'shutter_capture_duration_seconds_bucket', { format: 'pdf', phase: 'wait', le: '2.5' })).toBe(1);
    expect(sampleSum(s, 'shutter_capture_duration_seconds_count', { format: 'pdf' })).toBe(3);
  });

  it('jobFinished counts jobs by outcome and observes their age', async () => {
    const m = new Metrics();
    m.jobFinished('succeeded', 3);
    m.jobFinished('succeeded', 40);
    m.jobFinished('failed', 700);
    m.jobFinished('failed', Number.NaN);
    const s = await samplesOf(m);
    expect(sampleSum(s, 'shutter_jobs_total', { outcome: 'succeeded' })).toBe(2);
    expect(sampleSum(s, 'shutter_jobs_total', { outcome: 'failed' })).toBe(2);
    // A nonsense age is not observed.
    expect(sampleSum(s, 'shutter_job_age_seconds_count')).toBe(3);
    expect(sampleSum(s, 'shutter_job_age_seconds_sum')).toBe(743);
    expect(sampleSum(s, 'shutter_job_age_seconds_bucket', { le: '60' })).toBe(2);
  });

  it('onCollectQueued: counted at each scrape; a failing or hanging count keeps the last value and never fails the scrape', async () => {
    const m = new Metrics();
    expect(sampleSum(await samplesOf(m), 'shutter_jobs_queued')).toBe(0);
    let answer: () => Promise<number> = async () => 12;
    m.onCollectQueued(() => answer());
    expect(sampleSum(await samplesOf(m), 'shutter_jobs_queued')).toBe(12);
    answer = async () => {
      throw new Error('database down');
    };
    expect(sampleSum(await samplesOf(m), 'shutter_jobs_queued')).toBe(12);
    answer = () => new Promise<number>(() => undefined);
    const started = performance.now();
    expect(sampleSum(await samplesOf(m), 'shutter_jobs_queued')).toBe(12);
    expect(performance.now() - started).toBeLessThan(3_000);
    m.onCollectQueued(() => 3);
    expect(sampleSum(await samplesOf(m), 'shutter_jobs_queued')).toBe(3);
  });

  it('starts the labelled counters of fixed sets at zero, so rate() has a series from the first scrape', async () => {
    const s = await samplesOf(new Metrics());
    const series = (name: string) => s.filter((x) => x.name === name).map((x) => Object.values(x.labels)[0]);
    expect(series('shutter_limit_refusals_total')).toEqual([
      'rate_limited',
      'concurrency_limited',
      'quota_exceeded',
      'queue_full',
      'overloaded',
    ]);
    expect(series('shutter_cache_total')).toEqual(['hit', 'miss']);
    expect(series('shutter_browser_restarts_total')).toEqual(['capture_budget', 'crash', 'unresponsive']);
    expect(series('shutter_egress_blocked_total')).toEqual(['target', 'page_request', 'proxy_port']);
    expect(s.filter((x) => x.name.startsWith('shutter_')).every((x) => x.value === 0)).toBe(true);
  });
});
