import type { DayUsage } from '../usage/usage-store.js';
import { html, raw, type SafeHtml } from './html.js';

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { top: 18, right: 8, bottom: 22, left: 8 };

/**
 * Captures per day as an inline SVG bar chart, every non-zero bar labelled with its number (the
 * chart is readable without hovering and without JavaScript). `days` lists every day to show, in order.
 */
export function usageChart(days: DayUsage[]): SafeHtml {
  const max = Math.max(1, ...days.map((d) => d.captures));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const bars = days.map((d, i) => {
    const h = (d.captures / max) * plotH;
    const x = PAD.left + i * slot + (slot - barW) / 2;
    const y = PAD.top + plotH - h;
    const cx = (x + barW / 2).toFixed(1);
    const dayNumber = Number(d.day.slice(8, 10));
    return html`<g data-day="${d.day}" data-captures="${d.captures}"><title>${d.day}: ${d.captures} captures</title>
      <rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"></rect>
      ${d.captures > 0 ? html`<text class="value" x="${cx}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${d.captures}</text>` : ''}
      ${dayNumber === 1 || dayNumber % 5 === 0 || i === days.length - 1 ? html`<text x="${cx}" y="${HEIGHT - 6}" text-anchor="middle">${dayNumber}</text>` : ''}</g>`;
  });
  const axisY = PAD.top + plotH;
  return html`<svg class="chart" id="usage-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Captures per day"
    xmlns="http://www.w3.org/2000/svg">${raw(`<line class="axis" x1="${PAD.left}" y1="${axisY}" x2="${WIDTH - PAD.right}" y2="${axisY}"></line>`)}${bars}</svg>`;
}

const ROW = 26;
const LABEL_W = 180;

/** Captures per key as horizontal SVG bars, each with its key's name and number. */
export function keyUsageChart(rows: Array<{ name: string; captures: number }>): SafeHtml {
  const max = Math.max(1, ...rows.map((r) => r.captures));
  const barMax = WIDTH - LABEL_W - 60;
  const height = rows.length * ROW + 4;
  const bars = rows.map((r, i) => {
    const y = i * ROW + 4;
    const w = Math.max(r.captures > 0 ? 2 : 0, (r.captures / max) * barMax);
    return html`<g data-key="${r.name}" data-captures="${r.captures}">
      <text x="${LABEL_W - 8}" y="${y + 14}" text-anchor="end">${r.name.length > 28 ? `${r.name.slice(0, 27)}…` : r.name}</text>
      <rect class="bar" x="${LABEL_W}" y="${y + 2}" width="${w.toFixed(1)}" height="${ROW - 10}"></rect>
      <text class="value" x="${(LABEL_W + w + 6).toFixed(1)}" y="${y + 14}">${r.captures}</text></g>`;
  });
  return html`<svg class="chart" id="key-usage-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Captures per key"
    xmlns="http://www.w3.org/2000/svg">${bars}</svg>`;
}
