import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logAxis, renderChart } from '../../bench/lib/chart.js';
import { fullPageFits } from '../../bench/lib/fits.js';
import { emptyLoad, mergeLoads } from '../../bench/lib/load.js';
import type { BenchOptions, EngineId } from '../../bench/lib/options.js';
import { renderMarkdown, spreadCell, writeReport } from '../../bench/lib/report.js';
import type { RoundFigure, RunReport, ScenarioResult } from '../../bench/lib/results.js';
import { perRoundRatios, planBlocks, ratioSpread, roundOrder } from '../../bench/lib/rounds.js';
import { linearFit, quantile, spread } from '../../bench/lib/stats.js';
import { evaluateTargets } from '../../bench/lib/targets.js';

const rounds = (p50s: number[], throughputs: number[], bytes = 1000): RoundFigure[] =>
  p50s.map((p50, round) => ({ round, ok: 10, errors: 0, p50, throughput: throughputs[round]!, medianBytes: bytes }));

function result(scenario: string, engine: EngineId, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    scenario,
    title: scenario,
    engine,
    concurrency: 1,
    ok: 30,
    errors: 0,
    errorSamples: [],
    p50: 100,
    p95: 120,
    p99: 130,
    mean: 101,
    max: 140,
    throughput: 10,
    peakRssMb: 500,
    peakPssMb: 300,
    peakProcesses: 8,
    cpuMsPerCapture: 90,
    medianBytes: 100_000,
    ...extra,
  };
}

function report(scenarios: ScenarioResult[]): RunReport {
  const options = { rounds: 30, slowRounds: 8, warmup: 5, blocks: 3, fresh: true, sampleMs: 250 } as BenchOptions;
  const partial = {
    date: '2026-11-24T12:00:00.000Z',
    smoke: false,
    options,
    machine: {
      cpu: 'test cpu',
      cores: 2,
      ramGiB: 24,
      os: 'Debian',
      kernel: '6',
      chromium: 'Chromium 156',
      chromiumPath: '/usr/bin/chromium',
      node: 'v20',
      loadStart: 1,
      loadEnd: 2,
    },
    durationS: 60,
    scenarios,
    coldStarts: [{ engine: 'shutter' as const, ms: [900, 950], failures: [] }],
    longRuns: [],
    problems: 0,
  };
  return { ...partial, targets: evaluateTargets(partial) };
}

describe('bench: interleaved rounds', () => {
  it('cuts requests into blocks of whole waves, at least two waves above concurrency 1', () => {
    expect(planBlocks(100, 1, 10)).toEqual({ size: 10, rounds: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });
    expect(planBlocks(100, 8, 10)).toEqual({ size: 16, rounds: [0, 1, 2, 4, 5, 7, 8] });
    expect(planBlocks(2, 1, 2)).toEqual({ size: 1, rounds: [0, 1] });
    // Fewer requests than rounds (a per-request-launch baseline): fewer blocks, spread over the rounds.
    expect(planBlocks(24, 8, 10)).toEqual({ size: 8, rounds: [0, 3, 6] });
    expect(planBlocks(1, 1, 10)).toEqual({ size: 1, rounds: [0] });
    // A smoke run at concurrency 2 with 2 requests: one block of both.
    expect(planBlocks(2, 2, 2)).toEqual({ size: 2, rounds: [0] });
    // Too few for two blocks of two waves: blocks of one wave, so the engines still alternate.
    expect(planBlocks(16, 8, 6)).toEqual({ size: 8, rounds: [0, 3] });
    expect(planBlocks(12, 4, 6)).toEqual({ size: 4, rounds: [0, 2, 4] });
  });

  it('rotates the order every round', () => {
    expect([0, 1, 2, 3].map((r) => roundOrder(['a', 'b', 'c'], r).join(''))).toEqual(['abc', 'bca', 'cab', 'abc']);
    expect(roundOrder([], 3)).toEqual([]);
  });

  it('takes ratios round by round, only where both engines measured', () => {
    const a = rounds([100, 110, 120], [10, 9, 8]);
    const b = rounds([200, 200, 200], [5, 5, 5]).filter((r) => r.round !== 1);
    expect(perRoundRatios(a, b, (r) => r.p50)).toEqual([0.5, 0.6]);
    const s = ratioSpread(
      result('x', 'shutter', { rounds: a }),
      result('x', 'floor', { rounds: rounds([200, 220, 240], [5, 4.5, 4]) }),
      'throughput',
    );
    expect(s).toEqual({ median: 2, q1: 2, q3: 2, n: 3 });
    expect(ratioSpread(result('x', 'shutter', { rounds: a }), result('x', 'floor', { skipped: 'no' }), 'p50')).toBeUndefined();
  });

  it('summarises a spread as median and interquartile range', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(spread([0.9, 1.1, 1.0, 1.2, 0.8])).toEqual({ median: 1, q1: 0.9, q3: 1.1, n: 5 });
    expect(spread([Number.NaN])).toBeUndefined();
    expect(spreadCell({ median: 0.612, q1: 0.58, q3: 0.64, n: 10 })).toBe('0.61× (0.58–0.64)');
    expect(spreadCell({ median: 0.612, q1: 0.612, q3: 0.612, n: 1 })).toBe('0.61×');
  });

  it('merges the rounds of one engine into one load result', () => {
    const a = { ...emptyLoad(), latencies: [1, 2], bytes: [10, 10], ok: 2, wallMs: 100, cache: { HIT: 2 }, phases: { capture: [5] } };
    const b = {
      ...emptyLoad(),
      latencies: [3],
      bytes: [10],
      ok: 1,
      errors: 1,
      errorSamples: ['x'],
      wallMs: 50,
      cache: { HIT: 1, MISS: 1 },
    };
    const m = mergeLoads([a, b]);
    expect(m).toMatchObject({ latencies: [1, 2, 3], ok: 3, errors: 1, errorSamples: ['x'], wallMs: 150, cache: { HIT: 3, MISS: 1 } });
    expect(m.phases).toEqual({ capture: [5] });
  });
});

describe('bench: full-page line fit', () => {
  it('fits slope, intercept and R²', () => {
    const fit = linearFit([
      [2000, 300],
      [8000, 900],
      [20000, 2100],
    ])!;
    expect(fit.slope).toBeCloseTo(0.1, 10);
    expect(fit.intercept).toBeCloseTo(100, 6);
    expect(fit.r2).toBeCloseTo(1, 10);
    expect(linearFit([[1, 1]])).toBeUndefined();
    const noisy = linearFit([
      [0, 0],
      [1, 3],
      [2, 1],
    ])!;
    expect(noisy.r2).toBeLessThan(0.5);
  });

  it('fits each engine over its full-page rows', () => {
    const rows = [2000, 8000, 20000].flatMap((h) => [
      result(`full-${h}-c1`, 'shutter', { fullPageHeight: h, p50: 100 + h / 10, medianBytes: 80 * h }),
      result(`full-${h}-c1`, 'floor', { fullPageHeight: h, p50: 200 + h / 20, medianBytes: 90 * h }),
    ]);
    const fits = fullPageFits({ scenarios: [...rows, result('simple-png-c1', 'shutter')] });
    expect(fits.map((f) => f.engine)).toEqual(['shutter', 'floor']);
    expect(fits[0]!.time!.slope * 1000).toBeCloseTo(100, 6);
    expect(fits[0]!.bytes!.slope).toBeCloseTo(80, 6);
    expect(fits[1]!.points.map((p) => p.height)).toEqual([2000, 8000, 20000]);
    expect(fits[0]!.cpu!.slope).toBe(0);
  });
});

describe('bench: report and chart', () => {
  const scenarios = [
    result('simple-png-c1', 'shutter', { rounds: rounds([90, 95, 100], [11, 10.5, 10]), medianBytes: 120_000 }),
    result('simple-png-c1', 'floor', { p50: 200, throughput: 5, rounds: rounds([200, 190, 210], [5, 5.2, 4.8]), medianBytes: 250_000 }),
    result('simple-png-c1', 'bare', { p50: 95, throughput: 10.5, rounds: rounds([92, 96, 98], [12, 10, 10]) }),
    result('cache-hit-c8', 'shutter', { concurrency: 8, p50: 4.2, p95: 7, throughput: 900, cache: { HIT: 30 } }),
    result('heavy-png-c8', 'launch', { skipped: 'did not start: boom' }),
  ];

  it('renders the summary with per-round ratios, the bound goal and the cache table', () => {
    const md = renderMarkdown(report(scenarios), 'make bench');
    expect(md).toContain(
      '| simple-png-c1 | Shutter | 1 | 30 | 0 | 100 | 120 | 10.0 | 117 | 0.48× (0.46–0.49) | 2.08× (2.05–2.14) | 1.00× (0.96–1.02) |',
    );
    expect(md).toMatch(/\| simple-png-c1 \| 1 \| 10\.0 \| 10\.5 \| 1\.00× \(0\.96–1\.02\) \| 3 \| 0\.99× \(0\.98–1\.00\) \| PASS \|/);
    expect(md).toContain('| cache-hit-c8 | Shutter | 8 | 30 | 30 | 0 | 4.2 | 7.0 | 900 |');
    expect(md).toContain('| cache-hit-c8 | Shutter | 8 | 30 | 0 | 4.2 | 7.0 | 900.0 |');
    expect(md).toMatch(
      /simple-png-c1: PNG p50 ≤ 1× the floor's at bytes ≤ 1\.05× \(issues 21, 35\) \| bytes 117 vs 244 KiB = 0\.48×; p50 0\.48× .*\| PASS/,
    );
    expect(md).toContain('| heavy-png-c8 | launch per request | 1 | – | – | skipped: did not start: boom |');
    expect(md).toMatch(
      /simple-png-c1: Shutter throughput ≥ 0\.9× the bare-CDP bound \(issue 21\) \| 1\.00× \(IQR 0\.96–1\.02, 3 rounds\) \| PASS/,
    );
    expect(md).toMatch(/cache-hit-c8: p50 ≤ 10 ms, every answer a hit \(issue 21\) \| p50 4\.2 ms.* \| PASS/);
    expect(md).toMatch(/cold start \(process start → first capture\) ≤ 1\.0 s \(issue 21\) \| median 900 ms/);
  });

  it('draws one bar per measured engine and scenario in each panel, text escaped', () => {
    const svg = renderChart({ ...report(scenarios), scenarios: [...scenarios, result('a<b&c', 'shutter')] });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(2 * 5);
    expect(svg).toContain('a&lt;b&amp;c (c=1)');
    expect(svg).not.toContain('a<b');
    expect(svg).toContain('launch per request: skipped');
  });

  it('puts values on a log axis of whole decades', () => {
    const axis = logAxis([4.2, 200]);
    expect([axis.lo, axis.hi]).toEqual([1, 1000]);
    expect(axis.ticks).toEqual([1, 10, 100, 1000]);
    expect(axis.at(10)).toBeCloseTo(1 / 3, 10);
    expect(axis.at(0)).toBe(0);
  });

  it('writes the latest report and chart, and a dated copy for a measured run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      const r = report(scenarios);
      const files = writeReport(dir, 'bench', r, renderMarkdown(r, 'make bench'), true).map((f) => f.slice(dir.length + 1));
      expect(files).toEqual([
        'bench-latest.md',
        'bench-latest.svg',
        'bench-2026-11-24T12-00-00-000Z.md',
        'bench-2026-11-24T12-00-00-000Z.svg',
      ]);
      expect(readFileSync(join(dir, 'bench-latest.md'), 'utf8')).toContain('](bench-latest.svg)');
      expect(readFileSync(join(dir, 'bench-2026-11-24T12-00-00-000Z.md'), 'utf8')).toContain('](bench-2026-11-24T12-00-00-000Z.svg)');
      expect(writeReport(dir, 'smoke', r, 'x', false).map((f) => f.slice(dir.length + 1))).toEqual(['smoke-latest.md', 'smoke-latest.svg']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
