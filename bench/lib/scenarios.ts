/**
 * What is measured: each scenario is one kind of request at one concurrency, sent to the engines
 * that can serve it. Pages are the fixture site's (bench/fixtures/).
 */
import type { Expect } from './load.js';
import type { EngineId } from './options.js';

export interface Scenario {
  id: string;
  /** What a reader of the table sees. */
  title: string;
  page: string;
  params: Record<string, string>;
  concurrency: number;
  engines: EngineId[];
  expect: Expect;
  /** Share of BENCH_ROUNDS (and BENCH_SLOW_ROUNDS) measured: expensive pages get fewer requests. */
  weight?: number;
}

const WARM: EngineId[] = ['shutter', 'floor'];
/** With the bare-CDP bound, which does viewport png only: what a context-per-capture service can reach at best. */
const ALL_BOUND: EngineId[] = ['shutter', 'floor', 'bare', 'launch', 'capture-website'];
const WARM_BOUND: EngineId[] = [...WARM, 'bare'];

const at = (concurrencies: number[], make: (c: number) => Scenario): Scenario[] => concurrencies.map(make);

/** The full matrix, in run order. */
export const SCENARIOS: readonly Scenario[] = [
  ...at([1, 4, 8], (c) => ({
    id: `simple-png-c${c}`,
    title: 'simple page, png 1280×800',
    page: 'simple.html',
    params: {},
    concurrency: c,
    engines: ALL_BOUND,
    expect: 'png',
  })),
  ...at([1, 4, 8], (c) => ({
    id: `heavy-png-c${c}`,
    title: 'heavy page, png 1280×800',
    page: 'heavy.html',
    params: {},
    concurrency: c,
    engines: c === 1 ? ALL_BOUND : WARM_BOUND,
    expect: 'png',
    weight: 0.4,
  })),
  ...at([1, 4, 8], (c) => ({
    id: `heavy-full-c${c}`,
    title: 'heavy page, full-page png',
    page: 'heavy.html',
    params: { full_page: '1' },
    concurrency: c,
    engines: c === 1 ? ['shutter', 'floor', 'capture-website'] : WARM,
    expect: 'png',
    weight: 0.2,
  })),
  {
    id: 'lazy-full-c1',
    title: 'lazy long page, full-page png',
    page: 'lazy.html',
    params: { full_page: '1' },
    concurrency: 1,
    engines: ['shutter', 'floor', 'capture-website'],
    expect: 'png',
    weight: 0.2,
  },
  { id: 'simple-jpg-c1', title: 'simple page, jpg q80', page: 'simple.html', params: { format: 'jpg', quality: '80' }, concurrency: 1, engines: ['shutter', 'floor', 'capture-website'], expect: 'jpeg' },
  { id: 'simple-webp-c1', title: 'simple page, webp q80', page: 'simple.html', params: { format: 'webp', quality: '80' }, concurrency: 1, engines: ['shutter', 'capture-website'], expect: 'webp' },
  { id: 'doc-pdf-c1', title: 'multi-page document, pdf A4', page: 'doc.html', params: { format: 'pdf' }, concurrency: 1, engines: WARM, expect: 'pdf', weight: 0.5 },
  { id: 'doc-markdown-c1', title: 'multi-page document, markdown', page: 'doc.html', params: { format: 'markdown' }, concurrency: 1, engines: ['shutter'], expect: 'markdown' },
  // The flags' cost is measured against this plain capture run right before them: compared with
  // simple-png-c1, run ~15 min earlier, the machine's drift over a run (+40 ms once) was counted as theirs.
  { id: 'flags-off-c1', title: 'simple page, png, no flag (reference for the flag rows)', page: 'simple.html', params: {}, concurrency: 1, engines: ['shutter'], expect: 'png' },
  ...(['block_ads', 'block_cookie_banners', 'block_chats'] as const).map(
    (flag): Scenario => ({
      id: `${flag.replaceAll('_', '-')}-c1`,
      title: `simple page, png, ${flag}=1`,
      page: 'simple.html',
      params: { [flag]: '1' },
      concurrency: 1,
      engines: ['shutter'],
      expect: 'png',
    }),
  ),
  { id: 'upload-c1', title: 'simple page, png, upload=1 (local store)', page: 'simple.html', params: { upload: '1' }, concurrency: 1, engines: ['shutter'], expect: 'upload' },
];

/** The scenario every cold start is measured with (the first capture after process start). */
export const COLD_START_SCENARIO = SCENARIOS[0]!;

/** The mix of the long run: one of each, round robin, at concurrency 4. */
export const LONG_RUN_MIX = ['simple-png-c1', 'heavy-png-c1', 'simple-jpg-c1', 'doc-pdf-c1'];
export const LONG_RUN_CONCURRENCY = 4;

/** Smoke: every code path once, quickly. Concurrency only on the simple page (at 2), slow baselines on two. */
const SMOKE_SLOW = ['simple-png-c1', 'simple-webp-c1'];

/** The scenarios of this run (BENCH_SCENARIOS: ids or id prefixes), trimmed for a smoke run. */
export function selectScenarios(filter: string[], smoke: boolean): Scenario[] {
  let list = SCENARIOS.filter((s) => filter.length === 0 || filter.some((f) => s.id === f || s.id.startsWith(f)));
  if (smoke) {
    list = list
      .filter((s) => s.concurrency === 1 || s.id === 'simple-png-c4')
      .map((s) => (s.concurrency === 4 ? { ...s, id: 'simple-png-c2', concurrency: 2 } : s))
      .map((s) => ({ ...s, engines: s.engines.filter((e) => (e !== 'launch' && e !== 'capture-website') || SMOKE_SLOW.includes(s.id)) }));
  }
  return list;
}

/** Measured requests of a scenario: its share of the rounds, at least two per concurrent client. */
export function roundsFor(scenario: Scenario, rounds: number, smoke: boolean): number {
  if (smoke) return rounds;
  return Math.max(2 * scenario.concurrency, Math.ceil(rounds * (scenario.weight ?? 1)));
}
