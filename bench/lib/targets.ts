/**
 * The issue's targets, evaluated as ratios within one run (so machine speed cancels out) and
 * printed as PASS/FAIL. Not assertions: the bench reports, people decide.
 */
import type { EngineId } from './options.js';
import type { RunReport, ScenarioResult, Target } from './results.js';
import { median } from './stats.js';

const x = (v: number) => `${v.toFixed(2)}×`;

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
    s1 && f1 ? `${s1.p50.toFixed(0)} vs ${f1.p50.toFixed(0)} ms = ${x(s1.p50 / f1.p50)}${b1 ? ` (bare-CDP bound ${x(b1.p50 / f1.p50)})` : ''}` : undefined,
    s1 && f1 ? s1.p50 <= 0.6 * f1.p50 : undefined,
  );
  add(
    'simple png c=1: Shutter PNG no larger than floor',
    s1 && f1 ? `${(s1.medianBytes / 1024).toFixed(0)} vs ${(f1.medianBytes / 1024).toFixed(0)} KB = ${x(s1.medianBytes / f1.medianBytes)}` : undefined,
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
    cold && cold.ms.length ? `median ${median(cold.ms).toFixed(0)} ms, max ${Math.max(...cold.ms).toFixed(0)} ms (${cold.ms.length} starts)` : undefined,
    cold && cold.ms.length ? median(cold.ms) < 2_000 : undefined,
  );

  const long = report.longRuns.find((l) => l.engine === 'shutter');
  add(
    'memory (PSS) after 1 000 captures within 10 % of after 50',
    long ? `${long.pssAfter50Mb.toFixed(0)} → ${long.pssAfterEndMb.toFixed(0)} MiB after ${long.captures} = ${x(long.pssAfterEndMb / long.pssAfter50Mb)}` : undefined,
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
  return targets;
}
