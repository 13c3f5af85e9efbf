/**
 * Writes the Markdown report and SVG chart of a finished run again from its JSON, e.g. after the
 * report's layout changed: `node dist/bench/report.js [bench/results/bench-latest.json]`. Targets are
 * evaluated anew; the files go next to the JSON (<name>-latest.md/.svg, and the dated copies for a
 * measured run). BENCH_REPORT_COMMAND overrides the command line shown for a JSON that lacks it;
 * BENCH_REPORT_NOTE sets the note shown under it (BENCH_NOTE of the run).
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { renderMarkdown, writeReport } from './lib/report.js';
import type { RunReport } from './lib/results.js';
import { evaluateTargets } from './lib/targets.js';

const path = resolve(process.argv[2] ?? 'bench/results/bench-latest.json');
/** Figures that are NaN when nothing was measured: JSON wrote them as null. */
const NUMERIC = new Set(['p50', 'p90', 'p95', 'p99', 'mean', 'max', 'cpuMsPerCapture', 'toleratedP50', 'throughput']);
const raw = JSON.parse(readFileSync(path, 'utf8'), (key, value: unknown) =>
  value === null && NUMERIC.has(key) ? Number.NaN : value,
) as RunReport;
const note = process.env.BENCH_REPORT_NOTE ?? raw.note;
const report: RunReport = { ...raw, ...(note ? { note } : {}), targets: evaluateTargets(raw) };
const name = /^(.*?)-(latest|\d{4}-.*)\.json$/.exec(basename(path))?.[1] ?? (report.smoke ? 'smoke' : 'bench');
const command = process.env.BENCH_REPORT_COMMAND ?? report.command ?? (report.smoke ? 'make bench-smoke' : 'make bench');
const files = writeReport(dirname(path), name, report, renderMarkdown(report, command), !report.smoke);
console.log(files.join('\n'));
