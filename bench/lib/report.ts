/**
 * Turns a run into Markdown (printed, and written between the markers of docs/performance.md so
 * reruns replace it) and JSON under bench/results/ for comparisons between runs.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChart } from './chart.js';
import { ENGINE_LABELS } from './engines.js';
import { fullPageFits, type HeightFit } from './fits.js';
import type { EngineId } from './options.js';
import type { RunReport, ScenarioResult } from './results.js';
import { ratioSpread } from './rounds.js';
import { median, type LinearFit, type Spread } from './stats.js';
import { BOUND_GOAL, REAL_PAGE_IDS, REAL_PAGE_MAX_RATIO, lostCount, realPageVerdict } from './targets.js';

export const START_MARKER = '<!-- bench:results -->';
export const END_MARKER = '<!-- /bench:results -->';

const ms = (v: number) => (!Number.isFinite(v) ? '–' : Math.abs(v) < 10 ? v.toFixed(1) : v.toFixed(0));
const mb = (v: number) => (v > 0 ? v.toFixed(0) : '–');
const ratio = (a: number, b: number | undefined) =>
  b && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '';
const tolerated = (r: ScenarioResult) =>
  Object.entries(r.tolerated ?? {})
    .map(([status, n]) => `${status} ×${n}`)
    .join(', ');

/** `0.61× (0.58–0.64)`: median of the per-round ratios and their IQR (one round: the ratio alone). */
export const spreadCell = (sp: Spread | undefined) =>
  !sp ? '' : sp.n < 2 ? `${sp.median.toFixed(2)}×` : `${sp.median.toFixed(2)}× (${sp.q1.toFixed(2)}–${sp.q3.toFixed(2)})`;
const kib = (bytes: number) => (bytes ? (bytes / 1024).toFixed(0) : '–');

/** The result of `engine` in the same scenario as r, when it measured something. */
function sibling(report: RunReport, r: ScenarioResult, engine: EngineId): ScenarioResult | undefined {
  return report.scenarios.find((f) => f.scenario === r.scenario && f.engine === engine && !f.skipped && f.ok > 0);
}

/** The main table: latency, throughput, size, and per-round ratios against the floor and the bound. */
function summaryRows(report: RunReport): string[] {
  return report.scenarios.map((r) => {
    const head = `| ${r.scenario} | ${ENGINE_LABELS[r.engine]} | ${r.concurrency}`;
    if (r.skipped) return `${head} | – | – | skipped: ${r.skipped} | | | | | | | |`;
    const floor = r.engine === 'floor' ? undefined : sibling(report, r, 'floor');
    const bound = r.engine === 'bare' ? undefined : sibling(report, r, 'bare');
    return (
      [
        head,
        `${r.ok}`,
        (r.errors ? `**${r.errors}**` : '0') + (r.tolerated ? ` (+ ${tolerated(r)}, not errors)` : ''),
        ms(r.p50),
        ms(r.p95),
        r.throughput.toFixed(1),
        kib(r.medianBytes),
        spreadCell(ratioSpread(r, floor, 'p50')),
        spreadCell(ratioSpread(r, floor, 'throughput')),
        spreadCell(ratioSpread(r, bound, 'throughput')),
        r.loadAvg === undefined ? '' : r.loadAvg.toFixed(1),
      ].join(' | ') + ' |'
    );
  });
}

/** Tails, memory and CPU per scenario and engine. */
function resourceRows(report: RunReport): string[] {
  return report.scenarios
    .filter((r) => !r.skipped)
    .map(
      (r) =>
        `| ${r.scenario} | ${ENGINE_LABELS[r.engine]} | ${r.concurrency} | ${ms(r.p99)} | ${ms(r.max)} | ${r.blockSize ?? '–'} × ${r.rounds?.length ?? '–'} | ` +
        `${mb(r.peakPssMb)} | ${mb(r.peakRssMb)} | ${r.peakProcesses || '–'} | ${ms(r.cpuMsPerCapture)} | ` +
        `${Object.entries(r.warnings ?? {})
          .map(([k, v]) => `${k} ×${v}`)
          .join(', ')} |`,
    );
}

/** Issue 21: Shutter's throughput against the bare-CDP bound on every scenario that has the bound. */
function boundSection(report: RunReport): string[] {
  const rows = report.scenarios.filter((r) => r.engine === 'shutter' && !r.skipped && r.ok > 0 && sibling(report, r, 'bare'));
  if (!rows.length) return [];
  const lines = [
    '',
    `Shutter against the bare-CDP bound (the least work a context-per-capture service must do for the same PNG): ` +
      `throughput ratio per round, median (IQR); goal ≥ ${BOUND_GOAL}× on every viewport scenario (issue 21).`,
    '',
    '| scenario | c | Shutter captures/s | bound captures/s | Shutter ÷ bound | rounds | p50 Shutter ÷ bound | goal |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const b = sibling(report, r, 'bare')!;
    const t = ratioSpread(r, b, 'throughput');
    const p = ratioSpread(r, b, 'p50');
    lines.push(
      `| ${r.scenario} | ${r.concurrency} | ${r.throughput.toFixed(1)} | ${b.throughput.toFixed(1)} | ${spreadCell(t)} | ${t?.n ?? 0} | ${spreadCell(p)} | ` +
        `${t ? (t.median >= BOUND_GOAL ? 'PASS' : '**FAIL**') : 'n/a'} |`,
    );
  }
  return lines;
}

/** Issue 21: full pages of three heights, a straight line through time and bytes per engine. */
function fullPageSection(report: RunReport): string[] {
  const fits = fullPageFits(report);
  if (!fits.length) return [];
  const heights = [...new Set(fits.flatMap((f) => f.points.map((p) => p.height)))].sort((a, b) => a - b);
  const at = (f: HeightFit, h: number, v: (p: HeightFit['points'][number]) => string) => {
    const p = f.points.find((q) => q.height === h);
    return p ? v(p) : '–';
  };
  const r2 = (fit: LinearFit | undefined) => (fit ? fit.r2.toFixed(3) : '–');
  const lines = [
    '',
    `Full pages (issue 21): the same 500 px sections to ${heights.map((h) => h.toLocaleString('en-US').replaceAll(',', ' ')).join(' / ')} px, ` +
      'full-page png. A least-squares line through p50, through the median size and through the CPU time per capture (of the ' +
      "engine's whole tree; unlike latency, not inflated by other load on the machine) against the height: slope per 1 000 px, " +
      'intercept, and R² (1 = on the line).',
    '',
    `| engine | ms per 1 000 px | intercept ms | R² time | KiB per 1 000 px | intercept KiB | R² bytes | CPU ms per 1 000 px | R² CPU | ${heights.map((h) => `p50 / KiB at ${h}`).join(' | ')} |`,
    `|---|---|---|---|---|---|---|---|---|${heights.map(() => '---').join('|')}|`,
  ];
  for (const f of fits) {
    lines.push(
      `| ${ENGINE_LABELS[f.engine]} | ${f.time ? (f.time.slope * 1000).toFixed(1) : '–'} | ${f.time ? f.time.intercept.toFixed(0) : '–'} | ${r2(f.time)} | ` +
        `${f.bytes ? ((f.bytes.slope * 1000) / 1024).toFixed(0) : '–'} | ${f.bytes ? (f.bytes.intercept / 1024).toFixed(0) : '–'} | ${r2(f.bytes)} | ` +
        `${f.cpu ? (f.cpu.slope * 1000).toFixed(0) : '–'} | ${r2(f.cpu)} | ` +
        `${heights.map((h) => at(f, h, (p) => `${ms(p.p50)} / ${kib(p.bytes)}`)).join(' | ')} |`,
    );
  }
  return lines;
}

/** Issue 21: the cache-hit rows, with how many answers really were hits. */
function cacheSection(report: RunReport): string[] {
  const rows = report.scenarios.filter((r) => !r.skipped && r.cache);
  if (!rows.length) return [];
  const lines = [
    '',
    'Cache hits (`cache=1`, the same request again; the warm-up renders and fills the cache). Goal: p50 ≤ 10 ms at c=8 (issue 21).',
    '',
    '| scenario | engine | c | answers | X-Shutter-Cache HIT | MISS | p50 ms | p95 ms | captures/s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${ENGINE_LABELS[r.engine]} | ${r.concurrency} | ${r.ok} | ${r.cache!.HIT ?? 0} | ${r.cache!.MISS ?? 0} | ` +
        `${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.throughput.toFixed(0)} |`,
    );
  }
  return lines;
}

/** The results as Markdown: machine, scenarios, phases, cold starts, long run, targets. */
export function renderMarkdown(report: RunReport, command: string): string {
  const m = report.machine;
  const o = report.options;
  const lines = [
    `Run of ${report.date.slice(0, 16).replace('T', ' ')} UTC with \`${command}\`${report.smoke ? ' (**smoke run: figures are not meaningful**)' : ''}, ` +
      `${report.durationS.toFixed(0)} s. ${o.rounds} measured requests per scenario (${o.slowRounds} for the per-request-launch baselines) ` +
      `after ${o.warmup} warm-up; ${o.fresh ? 'a fresh process per engine and scenario' : 'one process per engine for all scenarios'}.`,
    '',
    ...(report.note ? [`**Note:** ${report.note}`, ''] : []),
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, ${m.os} (Linux ${m.kernel}), ${m.chromium} (\`${m.chromiumPath}\`), ` +
      `Node ${m.node}. Load average (1 min) ${m.loadStart} at start, ${m.loadEnd ?? '?'} at end.`,
    '',
    `Engines take turns within each scenario: the measured requests are cut into up to ${o.blocks} rounds, one block per engine ` +
      'per round, the order rotating each round (A B, B A, …), so that drift of the machine falls on every engine alike. ' +
      'A ratio is taken round by round and shown as its median with the interquartile range (25th–75th percentile) in brackets.',
    '',
    'Latency of successful requests in ms, from the client (HTTP, body read). "÷ floor": against the warm-Playwright floor ' +
      'in the same scenario; "÷ bound": against the bare-CDP bound. "load": 1-minute load average when the scenario began ' +
      '(2 cores; the bench itself adds up to about 2).',
    '',
    '| scenario | engine | c | ok | errors | p50 | p95 | captures/s | size KiB | p50 ÷ floor | captures/s ÷ floor | captures/s ÷ bound | load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...summaryRows(report),
    ...boundSection(report),
    ...fullPageSection(report),
    ...cacheSection(report),
    '',
    'Tails and resources. Memory: peak of the engine process plus all its descendants (browser, renderers), sampled every ' +
      `${o.sampleMs} ms while it was measured; PSS counts shared pages once. CPU: the whole tree's CPU time per capture. ` +
      '"block × rounds": requests per round and rounds measured. "warnings": successful answers flagged so ' +
      "(Shutter's X-Shutter-Warning; the baselines' X-Bench-Warning, e.g. screenshot_retry: Chromium had no frame yet and the floor asked again).",
    '',
    '| scenario | engine | c | p99 | max | block × rounds | peak PSS MiB | peak RSS MiB | processes | CPU ms/capture | warnings |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...resourceRows(report),
  ];

  const withPhases = report.scenarios.filter((r) => r.engine === 'shutter' && r.phases);
  if (withPhases.length) {
    const names = ['queue', 'navigate', 'wait', 'capture', 'encode'];
    lines.push(
      '',
      "Shutter's own phases (median of `Server-Timing`, ms):",
      '',
      `| scenario | ${names.join(' | ')} |`,
      `|---|${names.map(() => '---').join('|')}|`,
    );
    for (const r of withPhases)
      lines.push(`| ${r.scenario} | ${names.map((n) => (r.phases![n] === undefined ? '–' : r.phases![n]!.toFixed(0))).join(' | ')} |`);
  }

  lines.push(...realPages(report));

  lines.push(
    '',
    'Cold start: process start → first successful capture (simple page, png).',
    '',
    '| engine | starts | median ms | max ms | failures |',
    '|---|---|---|---|---|',
  );
  for (const c of report.coldStarts) {
    lines.push(
      `| ${ENGINE_LABELS[c.engine]} | ${c.ms.length} | ${ms(median(c.ms))} | ${c.ms.length ? ms(Math.max(...c.ms)) : '–'} | ${c.failures.length} |`,
    );
  }

  if (report.longRuns.length) {
    lines.push(
      '',
      'Long run: PSS of the whole tree after the first 50 captures and at the end, each after 2 s idle.',
      '',
      '| engine | captures | errors | mix, concurrency | PSS after 50 MiB | PSS at end MiB | end ÷ 50 | peak PSS MiB | RSS after 50 → end MiB | duration s |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const l of report.longRuns) {
      lines.push(
        `| ${ENGINE_LABELS[l.engine]} | ${l.captures} | ${l.errors} | ${l.mix.join(', ')}, c=${l.concurrency} | ${mb(l.pssAfter50Mb)} | ${mb(l.pssAfterEndMb)} | ` +
          `${ratio(l.pssAfterEndMb, l.pssAfter50Mb)} | ${mb(l.peakPssMb)} | ${mb(l.rssAfter50Mb)} → ${mb(l.rssAfterEndMb)} | ${l.durationS.toFixed(0)} |`,
      );
    }
  }

  lines.push(
    '',
    'Targets (issue 8; issue 21; real pages: issue 23), as ratios within this run (issue 21: medians of the per-round ratios):',
    '',
    '| target | measured | result |',
    '|---|---|---|',
  );
  for (const t of report.targets) lines.push(`| ${t.name} | ${t.measured} | ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : '**FAIL**'} |`);

  const errors = report.scenarios.filter((r) => r.errors > 0 || r.skipped);
  const longErrors = report.longRuns.filter((l) => l.errors > 0);
  if (errors.length || longErrors.length) {
    lines.push('', 'Errors:', '');
    for (const r of errors) {
      const what = r.skipped ? `skipped: ${r.skipped}` : `${r.errors} failed (${r.errorSamples.join('; ').slice(0, 300)})`;
      lines.push(`- ${r.scenario} / ${r.engine}: ${what.replaceAll('\n', ' ')}`);
    }
    for (const l of longErrors) lines.push(`- long run / ${l.engine}: ${l.errors} failed (${l.errorSamples.join('; ').slice(0, 300)})`);
  }
  return lines.join('\n');
}

/** Counters of the egress resolver in the order the issue names them; any others after. */
const RESOLVER_COUNTERS = ['lookups', 'network_lookups', 'cache_hits', 'joined', 'failures', 'deadline_hits'];

/**
 * Issue 23's table: the real pages, Shutter against the floor (Playwright's load on the same page),
 * what was lost and what was captured partly; then the egress resolver's counters per capture.
 */
function realPages(report: RunReport): string[] {
  const get = (id: string, engine: 'shutter' | 'floor') => report.scenarios.find((r) => r.scenario === id && r.engine === engine);
  const ids = REAL_PAGE_IDS.filter((id) => get(id, 'shutter') || get(id, 'floor'));
  if (!ids.length) return [];
  const lines = [
    '',
    'Real pages (issue 23): `article.html`, a news article whose 48 subresources sit on six hosts that never resolve ' +
      '(CDN, ad server, ad creatives, three trackers); `article-hang.html`, the same plus one tracking pixel on 127.0.0.1 ' +
      `that never answers. Goal: Shutter's p50 ≤ the floor's (Playwright's \`load\` on the same page) in every format, ` +
      `never above ${REAL_PAGE_MAX_RATIO}×, and nothing lost. Latencies (ms) of successful captures; "lost": 504 (or error), ` +
      "with the median time to it. The floor's markdown is `goto` (load) + `page.content()`; its `goto` is bounded " +
      `(${report.options.floorGotoTimeoutS ?? 30} s), after which it captures anyway ("load timed out").`,
    '',
    '| scenario | Shutter p50 | Shutter p90 | floor p50 | floor p90 | p50 ÷ floor | Shutter captured / lost / of | partial_load | floor load timed out | goal |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const id of ids) {
    const s = get(id, 'shutter');
    const f = get(id, 'floor');
    const cell = (r: ScenarioResult | undefined, v: (r: ScenarioResult) => number | undefined) =>
      !r ? '–' : r.skipped ? 'skipped' : ms(v(r) ?? Number.NaN);
    const lost = s && !s.skipped ? lostCount(s) : 0;
    const lostCell = lost ? `**${lost}**${s!.toleratedP50 !== undefined ? ` (${(s!.toleratedP50 / 1000).toFixed(1)} s)` : ''}` : '0';
    const verdict = realPageVerdict(s, f);
    lines.push(
      `| ${id} | ${cell(s, (r) => r.p50)} | ${cell(s, (r) => r.p90)} | ${cell(f, (r) => r.p50)} | ${cell(f, (r) => r.p90)} | ` +
        `${verdict.ratio === undefined ? '–' : `${verdict.ratio.toFixed(2)}×`} | ` +
        `${s && !s.skipped ? `${s.ok} / ${lostCell} / ${s.requests ?? s.ok + lost}` : '–'} | ` +
        `${s && !s.skipped ? `${s.warnings?.partial_load ?? 0}/${s.ok}` : '–'} | ` +
        `${f && !f.skipped ? `${f.warnings?.load_timeout ?? 0}/${f.ok}` : '–'} | ${verdict.label} |`,
    );
  }

  const withShutter = ids.map((id) => get(id, 'shutter')).filter((r): r is ScenarioResult => !!r && !r.skipped);
  if (withShutter.length) {
    const measured = withShutter.filter((r) => r.resolver);
    if (!measured.length) {
      lines.push('', "Egress resolver (`service.resolver` of `GET /v1/status`): n/a, this Shutter's status has no resolver counters.");
    } else {
      const seen = new Set(measured.flatMap((r) => Object.keys(r.resolver!.delta)));
      const names = [...RESOLVER_COUNTERS.filter((n) => seen.has(n)), ...[...seen].filter((n) => !RESOLVER_COUNTERS.includes(n))];
      lines.push(
        '',
        'Egress resolver (`service.resolver` of `GET /v1/status`, read before and after each measured phase): the difference per capture request.',
        '',
        `| scenario | requests | ${names.join(' | ')} |`,
        `|---|---|${names.map(() => '---').join('|')}|`,
      );
      for (const r of withShutter) {
        const n = r.requests ?? r.ok;
        const cells = names.map((k) => {
          const d = r.resolver?.delta[k];
          return d === undefined || !n ? 'n/a' : (d / n).toFixed(1);
        });
        lines.push(`| ${r.scenario} | ${n} | ${cells.join(' | ')} |`);
      }
    }
  }
  return lines;
}

/** Replaces the text between the markers of the doc (appending a section with them if missing). */
export function writeDocsSection(docPath: string, markdown: string): void {
  const block = `${START_MARKER}\n${markdown}\n${END_MARKER}`;
  const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Performance\n';
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  const next =
    start >= 0 && end > start
      ? doc.slice(0, start) + block + doc.slice(end + END_MARKER.length)
      : `${doc.trimEnd()}\n\n## Benchmark results\n\n${block}\n`;
  writeFileSync(docPath, next);
}

/** Writes bench/results/<name>-<date>.json and <name>-latest.json; returns the dated path. */
export function writeJson(dir: string, name: string, report: RunReport): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}-${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  copyFileSync(path, join(dir, `${name}-latest.json`));
  return path;
}

/** The report file: a title, the chart, then the run's Markdown. */
export function reportDocument(report: RunReport, markdown: string, chartFile: string): string {
  return [
    `# Shutter benchmark, ${report.date.slice(0, 16).replace('T', ' ')} UTC${report.smoke ? ' (smoke run)' : ''}`,
    '',
    'Written by `make bench` (`bench/run.ts`); how to run it and what each engine and scenario is: ' +
      '[docs/performance.md](../../docs/performance.md#how-to-run-the-benchmark). Every figure round by round is in the ' +
      "run's JSON (bench/results/bench-<date>.json, git-ignored: on the machine that ran it).",
    '',
    `![p50 latency and captures per second per engine and scenario](${chartFile})`,
    '',
    markdown,
    '',
  ].join('\n');
}

/**
 * Writes the Markdown report and its SVG chart into `dir`: <name>-latest.md and .svg, and with
 * `dated` also <name>-<date>.md and .svg (each linking its own chart). Returns the paths written.
 */
export function writeReport(dir: string, name: string, report: RunReport, markdown: string, dated: boolean): string[] {
  mkdirSync(dir, { recursive: true });
  const svg = renderChart(report);
  const stems = [`${name}-latest`, ...(dated ? [`${name}-${report.date.replace(/[:.]/g, '-')}`] : [])];
  const written: string[] = [];
  for (const stem of stems) {
    writeFileSync(join(dir, `${stem}.svg`), svg);
    writeFileSync(join(dir, `${stem}.md`), reportDocument(report, markdown, `${stem}.svg`));
    written.push(join(dir, `${stem}.md`), join(dir, `${stem}.svg`));
  }
  return written;
}
