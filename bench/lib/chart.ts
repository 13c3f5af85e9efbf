/**
 * The report's chart, hand-written SVG (no dependency): for every scenario one bar per engine, p50
 * latency on the left and captures per second on the right, both on log scales (the rows span a
 * 5 ms cache hit to a 10 s hanging page), each bar labelled with its value.
 */
import { ENGINE_LABELS } from './engines.js';
import type { EngineId } from './options.js';
import type { RunReport, ScenarioResult } from './results.js';

export const ENGINE_COLOURS: Record<EngineId, string> = {
  shutter: '#1d4ed8',
  floor: '#d97706',
  bare: '#059669',
  launch: '#dc2626',
  'capture-website': '#7c3aed',
};

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const num = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** A log10 axis over whole decades covering the values. */
export interface LogAxis {
  lo: number;
  hi: number;
  /** Position (0–1) of a value on the axis, clamped. */
  at(v: number): number;
  /** The powers of ten from lo to hi. */
  ticks: number[];
}

export function logAxis(values: readonly number[]): LogAxis {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = 10 ** Math.floor(Math.log10(finite.length ? Math.min(...finite) : 1));
  const hi = Math.max(lo * 10, 10 ** Math.ceil(Math.log10(finite.length ? Math.max(...finite) : 10)));
  const span = Math.log10(hi) - Math.log10(lo);
  const ticks: number[] = [];
  for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  return { lo, hi, ticks, at: (v) => Math.min(1, Math.max(0, (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span)) };
}

const tick = (v: number) => (v >= 1000 ? `${v / 1000}k` : String(v));

/** The SVG document for a run. */
export function renderChart(report: Pick<RunReport, 'scenarios' | 'date' | 'smoke'>): string {
  const rows = report.scenarios;
  const groups = [...new Set(rows.map((r) => r.scenario))].map((id) => rows.filter((r) => r.scenario === id));
  const measured = (r: ScenarioResult) => !r.skipped && r.ok > 0;
  const p50Axis = logAxis(rows.filter(measured).map((r) => r.p50));
  const tputAxis = logAxis(rows.filter(measured).map((r) => r.throughput));

  const W = 1200;
  const labelW = 250;
  const panelW = 440;
  const gap = 35;
  const left = [labelW, labelW + panelW + gap] as const;
  const bar = 10;
  const barGap = 2;
  const groupGap = 10;
  const top = 86;
  const out: string[] = [];
  let y = top;
  for (const group of groups) {
    const groupTop = y;
    const label = `${group[0]!.scenario} (c=${group[0]!.concurrency})`;
    out.push(`<text x="${labelW - 8}" y="${groupTop + 9}" text-anchor="end" class="s">${esc(label)}</text>`);
    for (const r of group) {
      const colour = ENGINE_COLOURS[r.engine];
      const title = `${r.scenario} · ${ENGINE_LABELS[r.engine]}`;
      if (!measured(r)) {
        out.push(
          `<text x="${left[0] + 4}" y="${y + 8}" class="v">${esc(`${ENGINE_LABELS[r.engine]}: ${r.skipped ? 'skipped' : 'no success'}`)}</text>`,
        );
      } else {
        const bars: Array<[number, number, string]> = [
          [left[0], p50Axis.at(r.p50), `${num(r.p50)} ms`],
          [left[1], tputAxis.at(r.throughput), `${num(r.throughput)}/s`],
        ];
        for (const [x0, f, text] of bars) {
          const w = Math.max(1, f * panelW);
          // The value after the bar; inside it, in white, when the bar leaves no room.
          const inside = w > panelW - 45;
          const label = inside
            ? `<text x="${(x0 + w - 3).toFixed(1)}" y="${y + 8.5}" class="v" text-anchor="end" style="fill:#fff">`
            : `<text x="${(x0 + w + 3).toFixed(1)}" y="${y + 8.5}" class="v">`;
          out.push(
            `<rect x="${x0}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${colour}"><title>${esc(`${title}: ${text}`)}</title></rect>`,
            `${label}${esc(text)}</text>`,
          );
        }
      }
      y += bar + barGap;
    }
    y += groupGap;
    out.push(`<line x1="8" x2="${W - 8}" y1="${y - groupGap / 2}" y2="${y - groupGap / 2}" class="sep"/>`);
  }
  const bottom = y;
  const H = bottom + 40;

  const grid: string[] = [];
  for (const [x0, axis, unit] of [
    [left[0], p50Axis, 'ms'],
    [left[1], tputAxis, '/s'],
  ] as const) {
    for (const t of axis.ticks) {
      const x = (x0 + axis.at(t) * panelW).toFixed(1);
      grid.push(
        `<line x1="${x}" x2="${x}" y1="${top - 6}" y2="${bottom}" class="g"/>`,
        `<text x="${x}" y="${top - 10}" text-anchor="middle" class="t">${tick(t)}${t === axis.hi ? ` ${unit}` : ''}</text>`,
        `<text x="${x}" y="${bottom + 14}" text-anchor="middle" class="t">${tick(t)}</text>`,
      );
    }
  }
  const engines = [...new Set(rows.map((r) => r.engine))];
  const legend = engines
    .map((e, i) => {
      const x = labelW + i * 190;
      return `<rect x="${x}" y="32" width="12" height="12" fill="${ENGINE_COLOURS[e]}"/><text x="${x + 17}" y="42" class="s">${esc(ENGINE_LABELS[e])}</text>`;
    })
    .join('');
  const title =
    `Shutter benchmark, ${report.date.slice(0, 16).replace('T', ' ')} UTC${report.smoke ? ' (smoke run: figures not meaningful)' : ''}: ` +
    'p50 latency (left, lower is better) and captures per second (right, higher is better), log scales';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Liberation Sans, Arial, sans-serif">`,
    '<style>.s{font-size:11px;fill:#1f2933}.v{font-size:9px;fill:#1f2933}.t{font-size:10px;fill:#52606d}.g{stroke:#e4e7eb}.sep{stroke:#f0f2f5}.h{font-size:13px;font-weight:700;fill:#1f2933}</style>',
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="8" y="22" class="h">${esc(title)}</text>`,
    legend,
    `<text x="${left[0]}" y="${top - 26}" class="s" font-weight="700">p50 latency, ms</text>`,
    `<text x="${left[1]}" y="${top - 26}" class="s" font-weight="700">captures per second</text>`,
    ...grid,
    ...out,
    '</svg>',
    '',
  ].join('\n');
}
