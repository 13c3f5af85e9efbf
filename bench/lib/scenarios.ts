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
  /** Measured requests in a smoke run (default BENCH_ROUNDS, i.e. 2). */
  smokeRounds?: number;
  /** Engines of a smoke run (default: `engines`, trimmed as selectScenarios says). */
  smokeEngines?: EngineId[];
  /** Shutter parameters added in a smoke run only (to bound what a smoke run waits for; never in a measured run). */
  smokeParams?: Record<string, string>;
  /** The page the warm-up requests load (default `page`): a page that hangs is warmed with its sibling that does not. */
  warmupPage?: string;
  /** Lower bound of the client's request timeout for this scenario, s (BENCH_REQUEST_TIMEOUT_S applies when higher). */
  minRequestTimeoutS?: number;
  /**
   * HTTP statuses that are a measured outcome here, not an error: counted and shown ("lost") but
   * not failing the run, e.g. Shutter's 504 on a page that never finishes loading. Anything else
   * (500, a wrong body, no answer) is still an error.
   */
  tolerate?: readonly number[];
  /** Part of the "real pages" table (issue 23). */
  realPage?: boolean;
  /** Unmeasured requests each engine gets first even when BENCH_WARMUP is 0 (the cache-hit rows: the miss that fills the cache). */
  minWarmup?: number;
  /** Left out of a smoke run (a path another scenario of the smoke run takes already). */
  smokeSkip?: boolean;
  /** A full-page capture of a page this tall (CSS px): the rows the report fits a line through. */
  fullPageHeight?: number;
}

const WARM: EngineId[] = ['shutter', 'floor'];
/** With the bare-CDP bound, which does viewport png only: what a context-per-capture service can reach at best. */
const ALL_BOUND: EngineId[] = ['shutter', 'floor', 'bare', 'launch', 'capture-website'];
const WARM_BOUND: EngineId[] = [...WARM, 'bare'];

/** Heights of the full-page rows (CSS px). */
export const FULL_PAGE_HEIGHTS = [2_000, 8_000, 20_000] as const;

const at = (concurrencies: number[], make: (c: number) => Scenario): Scenario[] => concurrencies.map(make);

/** A full-page png at c=1 against the floor, a fifth of the rounds (a tall page costs several viewports). */
const FULL_PAGE_PNG: Pick<Scenario, 'params' | 'concurrency' | 'engines' | 'expect' | 'weight' | 'smokeRounds'> = {
  params: { full_page: '1' },
  concurrency: 1,
  engines: WARM,
  expect: 'png',
  weight: 0.2,
  smokeRounds: 1,
};

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
  // Issue 21: pages whose PNG size a user compares (a viewport of CSS gradients, a gallery of 60
  // photos over plain http, a text-heavy article), with the bare-CDP bound: the goal for Shutter's
  // throughput on every viewport scenario is ≥ 0.9× the bound's. A smoke run leaves the bound out
  // here: it does the same on every page, and simple-png-c1 runs it.
  {
    id: 'gradient-png-c1',
    title: 'gradient landing page, png 1280×800',
    page: 'gradient.html',
    params: {},
    concurrency: 1,
    engines: WARM_BOUND,
    expect: 'png',
    smokeRounds: 1,
    smokeEngines: WARM,
  },
  ...at([1, 8], (c) => ({
    id: `photo-png-c${c}`,
    title: 'photo gallery (60 images over plain http), png 1280×800',
    page: 'photo.html',
    params: {},
    concurrency: c,
    engines: WARM_BOUND,
    expect: 'png',
    weight: 0.4,
    smokeRounds: 1,
    smokeEngines: WARM,
  })),
  {
    id: 'text-png-c1',
    title: 'text-heavy article, png 1280×800',
    page: 'text.html',
    params: {},
    concurrency: 1,
    engines: WARM_BOUND,
    expect: 'png',
    smokeRounds: 1,
    smokeEngines: WARM,
  },
  // Full pages of 2 000, 8 000 and 20 000 px (Shutter's default cap, SHUTTER_MAX_FULL_PAGE_HEIGHT) of
  // the same repeated content (tall-<px>.html, made by the fixture server): time and bytes should
  // grow linearly with height; the report fits a line through the three (ms and bytes per 1 000 px).
  ...FULL_PAGE_HEIGHTS.map((h): Scenario => ({
    id: `full-${h}-c1`,
    title: `page of ${h.toLocaleString('en-US').replaceAll(',', ' ')} px, full-page png`,
    page: `tall-${h}.html`,
    ...FULL_PAGE_PNG,
    fullPageHeight: h,
    // The middle height takes the same path as the lowest: a smoke run does the two ends, and the
    // highest (stitched from sections by Shutter) on Shutter only: the floor's full page is in heavy-full.
    ...(h === 8_000 ? { smokeSkip: true } : {}),
    ...(h === 20_000 ? { smokeEngines: ['shutter'] as EngineId[] } : {}),
  })),
  // A long text document (bench/fixtures/doc.html, ~15 000 px of prose) as a full-page png: the
  // PNG encoder's costliest case, where only zlib level 9 gets under the floor's bytes
  // (docs/performance.md, "Long text documents, full page").
  {
    id: 'doc-full-c1',
    title: 'long text document (~15 000 px), full-page png',
    page: 'doc.html',
    ...FULL_PAGE_PNG,
    smokeEngines: ['shutter'],
  },
  // Thumbnails: one element (selector; the floor: locator.screenshot()) and the viewport resized to
  // 320 px wide (image_width; the floor: page.screenshot() then sharp's resize, as a do-it-yourself service would).
  {
    id: 'selector-c1',
    title: 'simple page, selector=.card (one card), png',
    page: 'simple.html',
    params: { selector: '.card' },
    concurrency: 1,
    engines: WARM,
    expect: 'png',
    smokeRounds: 1,
  },
  {
    id: 'thumb-c1',
    title: 'simple page, png 1280×800 → image_width=320',
    page: 'simple.html',
    params: { image_width: '320' },
    concurrency: 1,
    engines: WARM,
    expect: 'png',
    smokeRounds: 1,
  },
  // The cache-hit path (issue 21: p50 ≤ 10 ms at c=8): the same request with cache=1; the warm-up's
  // first request renders and fills the cache, every measured one should be a hit (the report counts
  // X-Shutter-Cache). Shutter only: no baseline has a cache.
  ...at([1, 8], (c) => ({
    id: `cache-hit-c${c}`,
    title: 'simple page, png, cache=1: cache hits',
    page: 'simple.html',
    params: { cache: '1' },
    concurrency: c,
    engines: ['shutter'],
    expect: 'png',
    weight: 3,
    minWarmup: 1,
  })),
  {
    id: 'simple-jpg-c1',
    title: 'simple page, jpg q80',
    page: 'simple.html',
    params: { format: 'jpg', quality: '80' },
    concurrency: 1,
    engines: ['shutter', 'floor', 'capture-website'],
    expect: 'jpeg',
  },
  {
    id: 'simple-webp-c1',
    title: 'simple page, webp q80',
    page: 'simple.html',
    params: { format: 'webp', quality: '80' },
    concurrency: 1,
    engines: ['shutter', 'capture-website'],
    expect: 'webp',
  },
  {
    id: 'doc-pdf-c1',
    title: 'multi-page document, pdf A4',
    page: 'doc.html',
    params: { format: 'pdf' },
    concurrency: 1,
    engines: WARM,
    expect: 'pdf',
    weight: 0.5,
  },
  {
    id: 'doc-markdown-c1',
    title: 'multi-page document, markdown',
    page: 'doc.html',
    params: { format: 'markdown' },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'markdown',
  },
  // The flags' cost is measured against this plain capture run right before them: compared with
  // simple-png-c1, run ~15 min earlier, the machine's drift over a run (+40 ms once) was counted as theirs.
  {
    id: 'flags-off-c1',
    title: 'simple page, png, no flag (reference for the flag rows)',
    page: 'simple.html',
    params: {},
    concurrency: 1,
    engines: ['shutter'],
    expect: 'png',
  },
  ...(['block_ads', 'block_cookie_banners', 'block_chats'] as const).map((flag): Scenario => ({
    id: `${flag.replaceAll('_', '-')}-c1`,
    title: `simple page, png, ${flag}=1`,
    page: 'simple.html',
    params: { [flag]: '1' },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'png',
  })),
  {
    id: 'upload-c1',
    title: 'simple page, png, upload=1 (local store)',
    page: 'simple.html',
    params: { upload: '1' },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'upload',
  },
  ...realPageScenarios(),
  // wait_until=ready (issue 15) against load and networkidle0 on a client-rendered page: a skeleton
  // whose cards come from an API that answers 800 ms after the document (late.html).
  ...(['load', 'networkidle0', 'ready'] as const).map((wait): Scenario => ({
    id: `late-${wait}-c1`,
    title: `client-rendered page (API answers in 800 ms), png, wait_until=${wait}`,
    page: 'late.html',
    params: { wait_until: wait },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'png',
    weight: 0.3,
  })),
  // The same three on a page whose heading font arrives 700 ms late (font-display: swap).
  ...(['load', 'networkidle0', 'ready'] as const).map((wait): Scenario => ({
    id: `late-font-${wait}-c1`,
    title: `page with a web font that arrives in 700 ms, png, wait_until=${wait}`,
    page: 'late-font.html',
    params: { wait_until: wait },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'png',
    weight: 0.3,
  })),
  // And on a carousel: slides from an API answering in 600 ms, autoplay every 3 s, and a ticker
  // moved by requestAnimationFrame that never stops (carousel.html).
  ...(['load', 'networkidle0', 'ready'] as const).map((wait): Scenario => ({
    id: `carousel-${wait}-c1`,
    title: `carousel (slides from an API in 600 ms, an endless ticker), png, wait_until=${wait}`,
    page: 'carousel.html',
    params: { wait_until: wait },
    concurrency: 1,
    engines: ['shutter'],
    expect: 'png',
    weight: 0.3,
  })),
];

/**
 * Real pages (issue 23): a saved news article whose 48 subresources sit on six hosts that never
 * resolve (article.html), and the same page plus one tracking pixel on 127.0.0.1 that never answers
 * (article-hang.html, made by the fixture server). Shutter with default options against the floor,
 * i.e. Playwright's `load` on the same page: png, pdf, and for markdown the floor's `goto` (load)
 * then `page.content()`. The floor's goto is bounded (BENCH_FLOOR_GOTO_TIMEOUT_S, 30 s): past it,
 * it captures anyway and says so (X-Bench-Warning: load_timeout). Shutter's 504 (capture_timeout)
 * is measured, not gating: the run counts it as a lost capture, not as an error.
 */
function realPageScenarios(): Scenario[] {
  const formats = [
    { name: 'png', params: {}, expect: 'png' },
    { name: 'pdf', params: { format: 'pdf' }, expect: 'pdf' },
    { name: 'markdown', params: { format: 'markdown' }, expect: 'markdown' },
  ] as const;
  const pages = [
    { id: 'article', page: 'article.html', title: 'news article, 48 subresources on 6 unresolvable hosts', weight: 0.2 },
    // Every request of the hanging page waits for its stall or timeout (the floor: 30 s): a few suffice.
    { id: 'article-hang', page: 'article-hang.html', title: 'news article + a pixel on 127.0.0.1 that never answers', weight: 0.05 },
  ];
  return pages.flatMap((p) =>
    formats.map((f): Scenario => ({
      id: `${p.id}-${f.name}-c1`,
      title: `${p.title}, ${f.name}`,
      page: p.page,
      params: { ...f.params },
      concurrency: 1,
      engines: WARM,
      expect: f.expect,
      weight: p.weight,
      smokeRounds: 1,
      // A smoke run bounds Shutter's wait on the hanging page as pdf and markdown are (12 s), not 60 s,
      // and runs the floor's bounded goto on it once (png): pdf and markdown differ only after it.
      ...(p.id === 'article-hang' && f.name === 'png' ? { smokeParams: { timeout: '12' } } : {}),
      ...(p.id === 'article-hang' && f.name !== 'png' ? { smokeEngines: ['shutter'] } : {}),
      ...(p.id === 'article-hang' ? { warmupPage: 'article.html' } : {}),
      // Shutter's default capture timeout is 60 s (pdf and markdown 12 s): its 504 must reach the client.
      minRequestTimeoutS: 90,
      tolerate: [504],
      realPage: true,
    })),
  );
}

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
      .filter((s) => !s.smokeSkip)
      .filter((s) => s.concurrency === 1 || s.id === 'simple-png-c4')
      .map((s) => (s.concurrency === 4 ? { ...s, id: 'simple-png-c2', concurrency: 2 } : s))
      .map((s) => ({ ...s, engines: s.engines.filter((e) => (e !== 'launch' && e !== 'capture-website') || SMOKE_SLOW.includes(s.id)) }))
      .map((s) => (s.smokeEngines ? { ...s, engines: s.engines.filter((e) => s.smokeEngines!.includes(e)) } : s));
  }
  return list;
}

/** Measured requests of a scenario: its share of the rounds, at least two per concurrent client. */
export function roundsFor(scenario: Scenario, rounds: number, smoke: boolean): number {
  if (smoke) return scenario.smokeRounds ?? rounds;
  return Math.max(2 * scenario.concurrency, Math.ceil(rounds * (scenario.weight ?? 1)));
}
