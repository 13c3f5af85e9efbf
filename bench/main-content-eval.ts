/**
 * main_content against gold article bodies (issue 34): every page of scrapinghub's
 * article-extraction-benchmark (181 saved news and blog pages with a human-checked `articleBody`),
 * served from 127.0.0.1 with every other host unresolvable, captured by Shutter's engine as
 * format=markdown without and with main_content=1, and Readability.js alone (in Node over the raw
 * HTML, jsdom) beside them. Scored like the benchmark (bench/lib/shingles.ts); per page the capture
 * time. Prints a Markdown table and writes bench/results/main-content-eval.json.
 *
 * The pages are other sites' and are not in this repository; fetch them once (docs/performance.md):
 *   git clone --depth 1 https://github.com/scrapinghub/article-extraction-benchmark .cache/article-extraction-benchmark
 *   (cd bench && PUPPETEER_SKIP_DOWNLOAD=1 npm install --ignore-scripts)   # jsdom, for Readability alone
 * Run: `make build && node dist/bench/main-content-eval.js`
 * (BENCH_MC_DIR the clone, BENCH_MC_LIMIT the first N pages, BENCH_MC_WORST pages listed per column,
 * BENCH_MC_SPLIT=even|odd one half only (even-indexed pages tune, odd-indexed ones are held out),
 * BENCH_MC_WHOLE=0 without the whole-page captures, BENCH_MC_SAVE=<dir> each page's outputs there (scored text and raw Markdown),
 * BENCH_MC_IMAGE_TEXT=0 images scored as no text instead of their alt text.)
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { Readability } from '@mozilla/readability';
import { Timings } from '../src/capture/timings.js';
import { loadConfig } from '../src/config/load.js';
import { parseTakeOptions } from '../src/options/parse-take-options.js';
import { createEngine } from '../src/service.js';
import { findChromium } from '../src/capture/chromium-path.js';
import { writeSelfSignedCert } from './lib/self-signed-cert.js';
import { markdownText, matchPage, score, type PageMatch } from './lib/shingles.js';

const root = new URL('../../', import.meta.url);
const dir = process.env.BENCH_MC_DIR ?? new URL('.cache/article-extraction-benchmark/', root).pathname;
const LIMIT = Number(process.env.BENCH_MC_LIMIT ?? Infinity);
const WORST = Number(process.env.BENCH_MC_WORST ?? 5);
const SPLIT = process.env.BENCH_MC_SPLIT;
const WITH_WHOLE = process.env.BENCH_MC_WHOLE !== '0';
const SAVE = process.env.BENCH_MC_SAVE;
const IMAGE_TEXT = process.env.BENCH_MC_IMAGE_TEXT !== '0';
if (SAVE) mkdirSync(SAVE, { recursive: true });

if (!existsSync(`${dir}/ground-truth.json`)) {
  console.error(`no benchmark at ${dir}: see the header of bench/main-content-eval.ts`);
  process.exit(2);
}
const gold = JSON.parse(readFileSync(`${dir}/ground-truth.json`, 'utf8')) as Record<string, { articleBody: string; url?: string }>;
const allIds = readdirSync(`${dir}/html`)
  .filter((f) => f.endsWith('.html.gz'))
  .map((f) => f.slice(0, -'.html.gz'.length))
  .filter((id) => id in gold)
  .sort();
const halfOf = (id: string) => (allIds.indexOf(id) % 2 === 0 ? 'even' : 'odd');
const ids = allIds
  // The halves are taken over all pages in id order, so a page is in the same half whatever the limit.
  .filter((id) => SPLIT === undefined || halfOf(id) === SPLIT)
  .slice(0, LIMIT);
const pages = new Map(ids.map((id) => [id, gunzipSync(readFileSync(`${dir}/html/${id}.html.gz`))]));

// The saved page only; its stylesheets, scripts and images on other hosts fail (below: never resolved).
// Over HTTPS (a throwaway self-signed certificate, which the browser below is told to accept): the pages
// were saved from https:// sites, and some of them send an http:// visitor to https:// first
// (`if (location.protocol != "https:") location = …`), which over plain HTTP left a capture with
// nothing at all. BENCH_MC_HTTP=1 serves them over HTTP as before.
const tls = process.env.BENCH_MC_HTTP === '1' ? undefined : selfSignedCertificate();
const serve = (req: IncomingMessage, res: ServerResponse) => {
  const body = pages.get((req.url ?? '').replace(/^\/|\.html$/g, ''));
  // The benchmark stores every page as UTF-8, whatever its own meta tag says (as evaluate.py reads them).
  res.writeHead(body ? 200 : 404, { 'content-type': body ? 'text/html; charset=utf-8' : 'text/plain' }).end(body ?? 'not found');
};
const server = tls ? createHttpsServer(tls, serve) : createServer(serve);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** A certificate for 127.0.0.1 made by openssl, and a Chromium that accepts it (a wrapper script adding the flag). */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const at = '/tmp/shutter-mc-eval-tls';
  mkdirSync(at, { recursive: true });
  const { keyPath, certPath } = writeSelfSignedCert(at, '127.0.0.1');
  writeFileSync(`${at}/chromium`, `#!/bin/sh\nexec ${findChromium(process.env.SHUTTER_CHROMIUM_PATH)} --ignore-certificate-errors "$@"\n`, {
    mode: 0o755,
  });
  return { key: readFileSync(keyPath), cert: readFileSync(certPath) };
}

const config = loadConfig({
  SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
  SHUTTER_LOG_LEVEL: 'silent',
  SHUTTER_DATA_DIR: '/tmp/shutter-mc-eval',
  ...(tls ? { SHUTTER_CHROMIUM_PATH: '/tmp/shutter-mc-eval-tls/chromium' } : {}),
});
const engine = createEngine(config, pino({ level: 'silent' }), {
  resolve: async (host) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
});
await engine.start();

const jsdomRequire = createRequire(new URL('bench/package.json', root));
const { JSDOM, VirtualConsole } = jsdomRequire('jsdom') as {
  JSDOM: new (html: string, options: { url: string; virtualConsole: object }) => { window: { document: Document; close(): void } };
  VirtualConsole: new () => object;
};

interface Column {
  matches: PageMatch[];
  ms: number[];
  /** capture + encode: the part of a capture that main_content changes (navigation and waits are the same). */
  renderMs: number[];
  failed: number;
  notFound: number;
}
const column = (): Column => ({ matches: [], ms: [], renderMs: [], failed: 0, notFound: 0 });
const whole = column();
const main = column();
/** main_content's answer as it is, its title heading included (the benchmark's articleBody has no headline). */
const titled = column();
const alone = column();
const perPage: Array<{
  id: string;
  half: string;
  url?: string;
  whole: PageMatch;
  main: PageMatch;
  titled: PageMatch;
  alone: PageMatch;
  mainMs: number;
  wholeMs: number;
}> = [];

async function capture(id: string, mainContent: boolean, into: Column): Promise<PageMatch> {
  const options = parseTakeOptions(
    { url: `${base}/${id}.html`, format: 'markdown', ...(mainContent ? { main_content: '1' } : {}) },
    { countries: [] },
  );
  const started = performance.now();
  try {
    const timings = new Timings();
    const result = await engine.capture(options, timings);
    into.ms.push(performance.now() - started);
    into.renderMs.push((timings.ms.capture ?? 0) + (timings.ms.encode ?? 0));
    if (result.warnings?.includes('main_content_not_found')) into.notFound++;
    const markdown = result.body.toString('utf8');
    // BENCH_MC_IMAGE_TEXT=0: an image is no text, as in the text of the rendered Markdown (its alt
    // text shows only where the picture does not); by default its alt text is scored as text.
    const answer = markdownText(markdown, { images: IMAGE_TEXT ? 'alt' : 'none' });
    if (SAVE) {
      writeFileSync(`${SAVE}/${id}.${mainContent ? 'main' : 'whole'}.md`, answer);
      // The Markdown as answered too, images and links included, to read what the scored text came from.
      writeFileSync(`${SAVE}/${id}.${mainContent ? 'main' : 'whole'}.raw.md`, markdown);
    }
    // The article's body, as the benchmark marks it: without the title heading main_content puts first.
    const found = mainContent && !result.warnings?.includes('main_content_not_found');
    const text = found ? answer.replace(/^# [^\n]*\n/, '') : answer;
    if (into === main) titled.matches.push(matchPage(gold[id]!.articleBody, answer));
    const m = matchPage(gold[id]!.articleBody, text);
    into.matches.push(m);
    return m;
  } catch (error) {
    into.failed++;
    console.error(`${id} ${mainContent ? 'main_content' : 'whole'}: ${(error as Error).message}`);
    const m = matchPage(gold[id]!.articleBody, '');
    into.matches.push(m);
    return m;
  }
}

function readabilityAlone(id: string): PageMatch {
  const started = performance.now();
  let text = '';
  try {
    // Quiet: jsdom reports every stylesheet it cannot parse. A string, as the benchmark's own
    // readability_js runner passes it: a Buffer would be decoded by the page's meta charset, which the
    // saved (UTF-8) pages no longer match.
    const dom = new JSDOM(pages.get(id)!.toString('utf8'), {
      url: gold[id]!.url ?? `${base}/${id}.html`,
      virtualConsole: new VirtualConsole(),
    });
    text = new Readability(dom.window.document).parse()?.textContent ?? '';
    dom.window.close();
  } catch {
    alone.failed++;
  }
  alone.ms.push(performance.now() - started);
  const m = matchPage(gold[id]!.articleBody, text);
  alone.matches.push(m);
  return m;
}

// One warm-up capture each way, not counted.
await capture(ids[0]!, false, column());
await capture(ids[0]!, true, column());
let i = 0;
for (const id of ids) {
  // Alternate the order so that neither capture always runs on a page Chromium has just seen.
  const first = i++ % 2 === 0;
  const a = first && WITH_WHOLE ? await capture(id, false, whole) : undefined;
  const m = await capture(id, true, main);
  const w = a ?? (WITH_WHOLE ? await capture(id, false, whole) : matchPage('', ''));
  const r = readabilityAlone(id);
  perPage.push({
    id,
    half: halfOf(id),
    url: gold[id]!.url,
    whole: w,
    main: m,
    titled: titled.matches.at(-1)!,
    alone: r,
    mainMs: main.ms.at(-1) ?? NaN,
    wholeMs: whole.ms.at(-1) ?? NaN,
  });
  if (i % 20 === 0) console.error(`${i}/${ids.length}`);
}
await engine.close();
server.close();

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const f1Of = (pick: (p: (typeof perPage)[number]) => PageMatch, half: string) => {
  const of = perPage.filter((p) => p.half === half).map(pick);
  return of.length ? score(of).f1.toFixed(3) : '—';
};
const row = (name: string, c: Column, pick: (p: (typeof perPage)[number]) => PageMatch) => {
  if (c.matches.length === 0) return `| ${name} | not run |`;
  const s = score(c.matches);
  const render = c.renderMs.length ? pct(c.renderMs, 0.5).toFixed(0) : '—';
  return `| ${name} | ${s.precision.toFixed(3)} | ${s.recall.toFixed(3)} | **${s.f1.toFixed(3)}** | ${f1Of(pick, 'even')} | ${f1Of(pick, 'odd')} | ${pct(c.ms, 0.5).toFixed(0)} | ${pct(c.ms, 0.9).toFixed(0)} | ${render} | ${c.failed} | ${c.notFound} |`;
};
// What main_content adds to a capture, page by page (both captures of a page ran back to back).
const added = perPage.filter((p) => WITH_WHOLE && Number.isFinite(p.wholeMs)).map((p) => p.mainMs - p.wholeMs);
const table = [
  `${ids.length} pages of scrapinghub/article-extraction-benchmark, ${new Date().toISOString().slice(0, 10)}`,
  '',
  '| output | precision | recall | F1 | F1 even (tuned on) | F1 odd (held out) | p50 ms/page | p90 ms/page | p50 capture+encode ms | failed | not found |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  row('Shutter format=markdown (whole page)', whole, (p) => p.whole),
  row('Shutter format=markdown&main_content=1 (body: its leading title heading left out)', main, (p) => p.main),
  row(
    'Shutter format=markdown&main_content=1 (as answered, title included)',
    { ...titled, ms: main.ms, renderMs: main.renderMs, notFound: main.notFound },
    (p) => p.titled,
  ),
  row('Readability.js 0.6 alone (Node, jsdom, raw HTML)', alone, (p) => p.alone),
  '',
  added.length
    ? `main_content's added time per page (main_content capture minus the whole-page one, same page): p50 ${pct(added, 0.5).toFixed(0)} ms, p90 ${pct(added, 0.9).toFixed(0)} ms`
    : '',
].join('\n');
console.log(table);

const recallOf = (m: PageMatch) => (m.tp + m.fn > 0 ? m.tp / (m.tp + m.fn) : 1);
const precisionOf = (m: PageMatch) => (m.tp + m.fp > 0 ? m.tp / (m.tp + m.fp) : 1);
for (const [label, pick] of [
  ['lowest recall, whole page', (p: (typeof perPage)[number]) => recallOf(p.whole)],
  ['lowest recall, main_content', (p: (typeof perPage)[number]) => recallOf(p.main)],
  ['lowest precision, main_content', (p: (typeof perPage)[number]) => precisionOf(p.main)],
] as const) {
  console.log(`\n${label}:`);
  for (const p of [...perPage].sort((a, b) => pick(a) - pick(b)).slice(0, WORST))
    console.log(`  ${pick(p).toFixed(3)} ${p.id.slice(0, 12)} ${p.url ?? ''}`);
}
mkdirSync(new URL('bench/results/', root), { recursive: true });
writeFileSync(new URL('bench/results/main-content-eval.json', root), JSON.stringify({ table, perPage }, null, 1));
process.exit(0);
