/**
 * The issue's targets, evaluated as ratios within one run (so machine speed cancels out) and
 * printed as PASS/FAIL. Not assertions: the bench reports, people decide.
 */
import { fullPageFits } from './fits.js';
import type { EngineId } from './options.js';
import type { RunReport, ScenarioResult, Target } from './results.js';
import { ratioSpread } from './rounds.js';
import { SCENARIOS } from './scenarios.js';
import { median, type Spread } from './stats.js';

const x = (v: number) => `${v.toFixed(2)}×`;

/** Issue 21: Shutter's throughput on every viewport scenario at least this share of the bare-CDP bound's. */
export const BOUND_GOAL = 0.9;
/**
 * Issue 35's decision on issue 21: on the response path time comes first: on every png page the p50
 * at most the floor's, with bytes at most PNG_BYTES_GOAL × the floor's (recompression is for async jobs).
 */
export const PNG_P50_GOAL = 1.0;
export const PNG_BYTES_GOAL = 1.05;
/** Issue 35's decision: the heavy page at c=8, Shutter's throughput at least this many times the floor's. */
export const HEAVY_C8_GOAL = 1.2;
/** Issue 21: a cache hit's p50 at c=8, ms. */
export const CACHE_HIT_P50_GOAL_MS = 10;
/** Issue 21: a straight line must explain this much of full-page time and bytes against height. */
export const FULL_PAGE_R2_GOAL = 0.95;
/** The pages of issue 21's PNG-size goal, as scenarios at c=1 (full pages: the full-* rows). */
const PNG_PAGES = ['simple-png-c1', 'gradient-png-c1', 'photo-png-c1', 'text-png-c1', 'heavy-full-c1', 'doc-full-c1'];

const sp = (s: Spread) => `${x(s.median)} (IQR ${s.q1.toFixed(2)}–${s.q3.toFixed(2)}, ${s.n} rounds)`;

/** Issue 23's bound: Shutter's median on a real page at most this many times the floor's (Playwright's load). */
export const REAL_PAGE_MAX_RATIO = 1.2;

/** The real-page scenarios (issue 23), in run order. */
export const REAL_PAGE_IDS: readonly string[] = SCENARIOS.filter((s) => s.realPage).map((s) => s.id);

/** Answers of a scenario that were lost: tolerated statuses (504) plus errors. */
export function lostCount(r: ScenarioResult): number {
  return Object.values(r.tolerated ?? {}).reduce((a, b) => a + b, 0) + r.errors;
}

export interface RealPageVerdict {
  /** p50 of Shutter ÷ p50 of the floor, when both have successes. */
  ratio?: number;
  /** true: ≤ 1.2× and nothing lost; false: above, or lost; null: not measured. */
  pass: boolean | null;
  /** What the table's goal column shows. */
  label: string;
}

/**
 * Issue 23's goal on one real page: Shutter's median ≤ Playwright's load on the same page (the
 * floor), never above 1.2×, and no capture lost (no 504, no error).
 */
export function realPageVerdict(shutter: ScenarioResult | undefined, floor: ScenarioResult | undefined): RealPageVerdict {
  if (!shutter || shutter.skipped) return { pass: null, label: 'n/a' };
  const lost = lostCount(shutter);
  const ratio = floor && !floor.skipped && floor.ok > 0 && shutter.ok > 0 ? shutter.p50 / floor.p50 : undefined;
  if (lost > 0) return { ...(ratio === undefined ? {} : { ratio }), pass: false, label: `**FAIL** (${lost} lost)` };
  if (ratio === undefined) return { pass: null, label: 'n/a' };
  if (ratio <= 1) return { ratio, pass: true, label: 'PASS' };
  if (ratio <= REAL_PAGE_MAX_RATIO) return { ratio, pass: true, label: `PASS (within ${REAL_PAGE_MAX_RATIO}×)` };
  return { ratio, pass: false, label: '**FAIL**' };
}

/** Every target with what was measured; pass is null where this run lacks the figures. */
export function evaluateTargets(report: Omit<RunReport, 'targets'>): Target[] {
  const find = (scenario: string, engine: EngineId): ScenarioResult | undefined =>
    report.scenarios.find((r) => r.scenario === scenario && r.engine === engine && !r.skipped && r.ok > 0);
  const targets: Target[] = [];
  const add = (name: string, measured: string | undefined, pass: boolean | undefined) =>
    targets.push({ name, measured: measured ?? 'not measured', pass: measured === undefined ? null : (pass ?? null) });

  const s1 = find('simple-png-c1', 'shutter');
  const f1 = find('simple-png-c1', 'floor');
  const b1 = find('simple-png-c1', 'bare');
  add(
    'simple png c=1: Shutter p50 ≤ 0.6× floor',
    s1 && f1
      ? `${s1.p50.toFixed(0)} vs ${f1.p50.toFixed(0)} ms = ${x(s1.p50 / f1.p50)}${b1 ? ` (bare-CDP bound ${x(b1.p50 / f1.p50)})` : ''}`
      : undefined,
    s1 && f1 ? s1.p50 <= 0.6 * f1.p50 : undefined,
  );
  add(
    'simple png c=1: Shutter PNG no larger than floor',
    s1 && f1
      ? `${(s1.medianBytes / 1024).toFixed(0)} vs ${(f1.medianBytes / 1024).toFixed(0)} KB = ${x(s1.medianBytes / f1.medianBytes)}`
      : undefined,
    s1 && f1 ? s1.medianBytes <= f1.medianBytes : undefined,
  );

  const s8 = find('simple-png-c8', 'shutter');
  const f8 = find('simple-png-c8', 'floor');
  const l8 = find('simple-png-c8', 'launch');
  const b8 = find('simple-png-c8', 'bare');
  add(
    'simple png c=8: Shutter throughput ≥ 1.8× floor',
    s8 && f8
      ? `${s8.throughput.toFixed(1)} vs ${f8.throughput.toFixed(1)} /s = ${x(s8.throughput / f8.throughput)}${b8 ? ` (bare-CDP bound ${x(b8.throughput / f8.throughput)})` : ''}`
      : undefined,
    s8 && f8 ? s8.throughput >= 1.8 * f8.throughput : undefined,
  );
  add(
    'simple png c=8: Shutter throughput ≥ 3× launch per request',
    s8 && l8 ? `${s8.throughput.toFixed(1)} vs ${l8.throughput.toFixed(1)} /s = ${x(s8.throughput / l8.throughput)}` : undefined,
    s8 && l8 ? s8.throughput >= 3 * l8.throughput : undefined,
  );

  for (const id of ['heavy-png-c1', 'heavy-png-c4', 'heavy-png-c8', 'heavy-full-c1', 'heavy-full-c4', 'heavy-full-c8']) {
    const s = find(id, 'shutter');
    const f = find(id, 'floor');
    add(
      `${id}: no slower than floor (p50 ≤ 1×, throughput ≥ 1×)`,
      s && f ? `p50 ${x(s.p50 / f.p50)}, throughput ${x(s.throughput / f.throughput)}` : undefined,
      s && f ? s.p50 <= f.p50 && s.throughput >= f.throughput : undefined,
    );
  }

  const cold = report.coldStarts.find((c) => c.engine === 'shutter');
  add(
    'cold start (process start → first capture) < 2 s',
    cold && cold.ms.length
      ? `median ${median(cold.ms).toFixed(0)} ms, max ${Math.max(...cold.ms).toFixed(0)} ms (${cold.ms.length} starts)`
      : undefined,
    cold && cold.ms.length ? median(cold.ms) < 2_000 : undefined,
  );

  const long = report.longRuns.find((l) => l.engine === 'shutter');
  add(
    'memory (PSS) after 1 000 captures within 10 % of after 50',
    long
      ? `${long.pssAfter50Mb.toFixed(0)} → ${long.pssAfterEndMb.toFixed(0)} MiB after ${long.captures} = ${x(long.pssAfterEndMb / long.pssAfter50Mb)}`
      : undefined,
    long ? long.captures >= 1_000 && long.pssAfterEndMb <= 1.1 * long.pssAfter50Mb : undefined,
  );
  add(
    'memory (peak PSS) at c=8 below launch per request',
    s8 && l8 ? `${s8.peakPssMb.toFixed(0)} vs ${l8.peakPssMb.toFixed(0)} MiB = ${x(s8.peakPssMb / l8.peakPssMb)}` : undefined,
    s8 && l8 ? s8.peakPssMb < l8.peakPssMb : undefined,
  );

  const flagsOff = find('flags-off-c1', 'shutter') ?? s1;
  for (const flag of ['block-ads', 'block-cookie-banners', 'block-chats']) {
    const b = find(`${flag}-c1`, 'shutter');
    add(
      `${flag.replaceAll('-', '_')}=1 adds < 100 ms to a warm capture (p50)`,
      b && flagsOff ? `${b.p50.toFixed(0)} vs ${flagsOff.p50.toFixed(0)} ms = +${(b.p50 - flagsOff.p50).toFixed(0)} ms` : undefined,
      b && flagsOff ? b.p50 - flagsOff.p50 < 100 : undefined,
    );
  }

  targets.push(...issue21Targets(report));

  for (const id of REAL_PAGE_IDS) {
    const s = report.scenarios.find((r) => r.scenario === id && r.engine === 'shutter' && !r.skipped);
    const f = find(id, 'floor');
    const verdict = realPageVerdict(s, f);
    const parts: string[] = [];
    if (s && s.ok > 0 && f) parts.push(`${s.p50.toFixed(0)} vs ${f.p50.toFixed(0)} ms = ${x(s.p50 / f.p50)}`);
    if (s && lostCount(s) > 0) parts.push(`${lostCount(s)} of ${s.requests ?? s.ok + lostCount(s)} lost`);
    if (f?.warnings?.load_timeout) parts.push(`floor load timed out ${f.warnings.load_timeout}/${f.ok}`);
    add(
      `${id}: Shutter p50 ≤ floor (Playwright's load), never above ${REAL_PAGE_MAX_RATIO}×, none lost (issue 23)`,
      s && (s.ok > 0 || lostCount(s) > 0) ? parts.join('; ') || 'no floor figure' : undefined,
      verdict.pass ?? undefined,
    );
  }
  return targets;
}

/** Issue 21's goals that this bench measures: ratios round by round where both engines ran in the same rounds. */
function issue21Targets(report: Omit<RunReport, 'targets'>): Target[] {
  const targets: Target[] = [];
  const find = (scenario: string, engine: EngineId): ScenarioResult | undefined =>
    report.scenarios.find((r) => r.scenario === scenario && r.engine === engine && !r.skipped && r.ok > 0);
  const add = (name: string, measured: string | undefined, pass: boolean | undefined) =>
    targets.push({ name, measured: measured ?? 'not measured', pass: measured === undefined ? null : (pass ?? null) });

  // Throughput ≥ 0.9× the bound on every scenario that has the bound (the viewport png ones).
  const withBound = [...new Set(report.scenarios.filter((r) => r.engine === 'bare').map((r) => r.scenario))];
  for (const id of withBound) {
    const t = ratioSpread(find(id, 'shutter'), find(id, 'bare'), 'throughput');
    add(`${id}: Shutter throughput ≥ ${BOUND_GOAL}× the bare-CDP bound (issue 21)`, t && sp(t), t && t.median >= BOUND_GOAL);
  }

  // PNG: p50 ≤ the floor's at bytes ≤ 1.05× the floor's, on every png page (issue 35's decision).
  const fullIds = report.scenarios.filter((r) => r.fullPageHeight && r.engine === 'shutter').map((r) => r.scenario);
  for (const id of [...PNG_PAGES, ...new Set(fullIds)]) {
    const s = find(id, 'shutter');
    const f = find(id, 'floor');
    const p50 = ratioSpread(s, f, 'p50');
    const bytes = s && f && f.medianBytes > 0 ? s.medianBytes / f.medianBytes : undefined;
    add(
      `${id}: PNG p50 ≤ ${PNG_P50_GOAL}× the floor's at bytes ≤ ${PNG_BYTES_GOAL}× (issues 21, 35)`,
      s && f && bytes !== undefined
        ? `bytes ${(s.medianBytes / 1024).toFixed(0)} vs ${(f.medianBytes / 1024).toFixed(0)} KiB = ${x(bytes)}; p50 ${p50 ? sp(p50) : x(s.p50 / f.p50)}`
        : undefined,
      s && f && bytes !== undefined ? bytes <= PNG_BYTES_GOAL && (p50?.median ?? s.p50 / f.p50) <= PNG_P50_GOAL : undefined,
    );
  }

  const h8 = ratioSpread(find('heavy-png-c8', 'shutter'), find('heavy-png-c8', 'floor'), 'throughput');
  add(`heavy-png-c8: Shutter throughput ≥ ${HEAVY_C8_GOAL}× the floor (issues 21, 35)`, h8 && sp(h8), h8 && h8.median >= HEAVY_C8_GOAL);
  const p8 = ratioSpread(find('photo-png-c8', 'shutter'), find('photo-png-c8', 'floor'), 'throughput');
  add('photo-png-c8 (60 images over plain http): Shutter throughput ≥ 1.5× the floor (issue 21)', p8 && sp(p8), p8 && p8.median >= 1.5);

  const hit = find('cache-hit-c8', 'shutter');
  add(
    `cache-hit-c8: p50 ≤ ${CACHE_HIT_P50_GOAL_MS} ms, every answer a hit (issue 21)`,
    hit
      ? `p50 ${hit.p50.toFixed(1)} ms, p95 ${hit.p95.toFixed(1)} ms, ${hit.throughput.toFixed(0)}/s; X-Shutter-Cache HIT ${hit.cache?.HIT ?? 0} of ${hit.ok}`
      : undefined,
    hit ? hit.p50 <= CACHE_HIT_P50_GOAL_MS && (hit.cache?.HIT ?? 0) === hit.ok : undefined,
  );

  const shutterFit = fullPageFits(report).find((f) => f.engine === 'shutter');
  const fitted = shutterFit?.time && shutterFit.bytes && shutterFit.points.length >= 3 ? shutterFit : undefined;
  add(
    `full page: Shutter's time and bytes linear in height (R² ≥ ${FULL_PAGE_R2_GOAL} over ${shutterFit?.points.length ?? 0} heights, issue 21)`,
    fitted
      ? `${(fitted.time!.slope * 1000).toFixed(0)} ms and ${((fitted.bytes!.slope * 1000) / 1024).toFixed(0)} KiB per 1 000 px; R² ${fitted.time!.r2.toFixed(3)} (time), ${fitted.bytes!.r2.toFixed(3)} (bytes)`
      : undefined,
    fitted ? fitted.time!.r2 >= FULL_PAGE_R2_GOAL && fitted.bytes!.r2 >= FULL_PAGE_R2_GOAL : undefined,
  );

  const cold = report.coldStarts.find((c) => c.engine === 'shutter');
  add(
    'cold start (process start → first capture) ≤ 1.0 s (issue 21)',
    cold && cold.ms.length ? `median ${median(cold.ms).toFixed(0)} ms (${cold.ms.length} starts)` : undefined,
    cold && cold.ms.length ? median(cold.ms) <= 1_000 : undefined,
  );
  return targets;
}
