/** The full-page rows (issue 21): time and bytes against the page's height, one straight line per engine. */
import type { EngineId } from './options.js';
import type { RunReport, ScenarioResult } from './results.js';
import { linearFit, type LinearFit } from './stats.js';

export interface HeightFit {
  engine: EngineId;
  /** The rows fitted, by height. */
  points: Array<{ height: number; p50: number; bytes: number; cpuMs: number; scenario: string }>;
  /** p50 (ms) against height (px). */
  time?: LinearFit;
  /** Median bytes against height (px). */
  bytes?: LinearFit;
  /** CPU time of the engine's whole tree per capture (ms) against height (px): what load on the machine does not inflate. */
  cpu?: LinearFit;
}

/** One fit per engine over the rows with a fullPageHeight and successes, engines in order of first appearance. */
export function fullPageFits(report: Pick<RunReport, 'scenarios'>): HeightFit[] {
  const rows = report.scenarios.filter(
    (r): r is ScenarioResult & { fullPageHeight: number } => !!r.fullPageHeight && !r.skipped && r.ok > 0,
  );
  const engines = [...new Set(rows.map((r) => r.engine))];
  return engines.map((engine) => {
    const points = rows
      .filter((r) => r.engine === engine)
      .map((r) => ({ height: r.fullPageHeight, p50: r.p50, bytes: r.medianBytes, cpuMs: r.cpuMsPerCapture, scenario: r.scenario }))
      .sort((a, b) => a.height - b.height);
    const time = linearFit(points.map((p) => [p.height, p.p50] as const));
    const bytes = linearFit(points.map((p) => [p.height, p.bytes] as const));
    const cpu = linearFit(points.map((p) => [p.height, p.cpuMs] as const));
    return { engine, points, ...(time ? { time } : {}), ...(bytes ? { bytes } : {}), ...(cpu ? { cpu } : {}) };
  });
}
