/**
 * Turns a run into Markdown (printed, and written between the markers of docs/performance.md so
 * reruns replace it) and JSON under bench/results/ for comparisons between runs.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE_LABELS } from './engines.js';
import type { RunReport, ScenarioResult } from './results.js';
import { median } from './stats.js';
import { REAL_PAGE_IDS, REAL_PAGE_MAX_RATIO, lostCount, realPageVerdict } from './targets.js';

export const START_MARKER = '<!-- bench:results -->';
export const END_MARKER = '<!-- /bench:results -->';

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '–');
const mb = (v: number) => (v > 0 ? v.toFixed(0) : '–');
const ratio = (a: number, b: number | undefined) =>
  b && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '';
const tolerated = (r: ScenarioResult) =>
  Object.entries(r.tolerated ?? {})
    .map(([status, n]) => `${status} ×${n}`)
    .join(', ');

function scenarioRows(report: RunReport): string[] {
  const floorOf = (r: ScenarioResult) =>
    report.scenarios.find((f) => f.scenario === r.scenario && f.engine === 'floor' && !f.skipped && f.ok > 0);
  return report.scenarios.map((r) => {
    const head = `| ${r.scenario} | ${ENGINE_LABELS[r.engine]} | ${r.concurrency}`;
    if (r.skipped) return `${head} | – | – | skipped: ${r.skipped} | | | | | | | | | |`;
    const floor = r.engine === 'floor' ? undefined : floorOf(r);
    return (
      [
        head,
        `${r.ok}`,
        (r.errors ? `**${r.errors}**` : '0') + (r.tolerated ? ` (+ ${tolerated(r)}, not errors)` : ''),
        ms(r.p50),
        ms(r.p95),
        ms(r.p99),
        r.throughput.toFixed(1),
        ratio(r.p50, floor?.p50),
        ratio(r.throughput, floor?.throughput),
        mb(r.peakPssMb),
        mb(r.peakRssMb),
        ms(r.cpuMsPerCapture),
        r.medianBytes ? (r.medianBytes / 1024).toFixed(0) : '–',
      ].join(' | ') + ' |'
    );
  });
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
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, ${m.os} (Linux ${m.kernel}), ${m.chromium} (\`${m.chromiumPath}\`), ` +
      `Node ${m.node}. Load average (1 min) ${m.loadStart} at start, ${m.loadEnd ?? '?'} at end.`,
    '',
    'Latency of successful requests in ms, from the client (HTTP, body read). "÷ floor": against the floor in the same scenario. ' +
      'Memory: peak of the engine process plus all its descendants (browser, renderers), sampled every ' +
      `${o.sampleMs} ms; PSS counts shared pages once. CPU: the whole tree's CPU time per capture.`,
    '',
    '| scenario | engine | c | ok | errors | p50 | p95 | p99 | captures/s | p50 ÷ floor | captures/s ÷ floor | peak PSS MiB | peak RSS MiB | CPU ms/capture | size KiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...scenarioRows(report),
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
    'Targets (issue 8; real pages: issue 23), as ratios within this run:',
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
