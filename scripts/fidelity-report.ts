/**
 * The fidelity corpus report (issue 16): every page of test/fixtures/fidelity/ through the real
 * service, one capture at a time, in every format, printed as the Markdown table of
 * docs/fidelity.md. Per page: the status and warnings, the time of each format, the full-page
 * image's height against the page's real height (measured again here in plain Playwright by
 * scrolling through the page), markdown recall of the pinned texts, and the checks that failed.
 * Playwright's own `page.goto(url, { waitUntil: 'load' })` time is given for comparison.
 *
 * Unlike the e2e test, captures use the default `timeout` (a page's test-only `timeout` is dropped),
 * so a page that holds a capture shows its real cost.
 *
 *   npx tsx scripts/fidelity-report.ts                 # all pages (~6 min on 2 cores)
 *   npx tsx scripts/fidelity-report.ts emoji cjk       # some pages
 *   FIDELITY_JSON=out.json npx tsx scripts/fidelity-report.ts   # also write the raw results
 */
import { writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../src/capture/chromium-path.js';
import { launchArgs } from '../src/capture/launch-args.js';
import { staticResolver } from '../src/egress/resolver.js';
import { startService } from '../test/e2e/harness.js';
import { capturesOf, checksOf, pinnedTexts, recall, verdict, type CaptureResult } from '../test/fixtures/fidelity/checks.js';
import { HOSTS, PAGES, type FidelityPage } from '../test/fixtures/fidelity/manifest.js';
import { startFixtureServer, stopFixtureServer } from '../test/helpers/fixture-server.js';
import sharp from 'sharp';

process.env.SHUTTER_LOG_LEVEL ??= 'silent';

interface Row {
  page: string;
  realHeight: number;
  pinnedHeight: number;
  playwrightLoadMs: number | null;
  captures: Record<string, { status: number; warning?: string; ms: number; failed: string[] }>;
  fullPageHeight: number | null;
  markdownRecall: number | null;
  markdownFullRecall: number | null;
}

/** Plain Playwright: `load` time, then the real scrollHeight after scrolling through the page slowly. */
async function reference(browser: Browser, url: string): Promise<{ loadMs: number | null; height: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const started = performance.now();
    let loadMs: number | null = null;
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      loadMs = performance.now() - started;
    } catch {
      // Never reached load within 30 s: reported as such.
    }
    for (let i = 0; i < 60; i++) {
      const atEnd = await page.evaluate(() => {
        window.scrollBy(0, 700);
        return window.scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
      });
      await page.waitForTimeout(200);
      if (atEnd) {
        await page.waitForTimeout(1000);
        if (await page.evaluate(() => window.scrollY + innerHeight >= document.documentElement.scrollHeight - 2)) break;
      }
    }
    return { loadMs, height: await page.evaluate(() => document.documentElement.scrollHeight) };
  } finally {
    await context.close();
  }
}

async function main() {
  const only = process.argv.slice(2);
  const pages = only.length ? PAGES.filter((p) => only.includes(p.name)) : PAGES;
  const fixture = await startFixtureServer();
  const service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    resolve: staticResolver(Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1']))),
  });
  const browser = await chromium.launch({
    executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH),
    args: [...launchArgs(), `--host-resolver-rules=${HOSTS.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}, MAP * ~NOTFOUND`],
  });
  const rows: Row[] = [];
  try {
    for (const page of pages) rows.push(await measure(page));
  } finally {
    await browser.close();
    await service.close();
    await stopFixtureServer(fixture);
  }
  print(rows);
  if (process.env.FIDELITY_JSON) writeFileSync(process.env.FIDELITY_JSON, JSON.stringify(rows, null, 2));

  async function measure(page: FidelityPage): Promise<Row> {
    const url = `http://www.fidelity.example:${fixture.port}/fidelity/${page.path}`;
    const ref = await reference(browser, url);
    const row: Row = {
      page: page.name,
      realHeight: ref.height,
      pinnedHeight: page.height,
      playwrightLoadMs: ref.loadMs,
      captures: {},
      fullPageHeight: null,
      markdownRecall: null,
      markdownFullRecall: null,
    };
    const params = { ...page.params };
    delete params.timeout;
    for (const spec of capturesOf(page)) {
      let result: CaptureResult;
      for (;;) {
        const started = performance.now();
        const res = await service.app.inject({
          method: 'GET',
          url: '/v1/take',
          query: { url, ...params, ...spec.query },
          headers: { apikey: service.apiKey },
        });
        const ms = performance.now() - started;
        if (res.statusCode === 429) {
          await new Promise((r) => setTimeout(r, Math.min(Number(res.headers['retry-after'] ?? 1), 10) * 1000));
          continue;
        }
        const warning = res.headers['x-shutter-warning'];
        result = {
          status: res.statusCode,
          warning: typeof warning === 'string' ? warning : undefined,
          contentType: String(res.headers['content-type'] ?? ''),
          body: res.rawPayload,
          ms,
        };
        break;
      }
      const found = await verdict(page, spec, result, checksOf(page, spec));
      const failed = Object.entries(found)
        .filter(([, problems]) => problems.length > 0)
        .map(([check]) => check);
      row.captures[spec.name] = { status: result.status, ...(result.warning ? { warning: result.warning } : {}), ms: result.ms, failed };
      if (result.status !== 200) continue;
      if (spec.name === 'full_page') row.fullPageHeight = (await sharp(result.body).metadata()).height ?? null;
      if (spec.name === 'markdown') row.markdownRecall = recall(result.body.toString('utf8'), pinnedTexts(page, spec));
      if (spec.name === 'markdown_full') row.markdownFullRecall = recall(result.body.toString('utf8'), pinnedTexts(page, spec));
    }
    process.stderr.write(`${page.name}: done\n`);
    return row;
  }
}

function print(rows: Row[]) {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const formats = ['png', 'jpg', 'webp', 'full_page', 'pdf', 'markdown', 'html'];
  console.log(
    '| page | status | Playwright load (s) | png | jpg | webp | full page | pdf | markdown | html | full-page height / real | markdown recall | failed checks; notes |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const statuses = new Set(Object.values(row.captures).map((c) => `${c.status}${c.warning ? ` ${c.warning}` : ''}`));
    const height = `${row.fullPageHeight ?? '—'} / ${row.realHeight}${row.realHeight !== row.pinnedHeight ? ` (pinned ${row.pinnedHeight})` : ''}`;
    const recallText =
      row.markdownRecall === null
        ? '—'
        : `${Math.round(row.markdownRecall * 100)} %${row.markdownFullRecall !== null ? ` (full_page: ${Math.round(row.markdownFullRecall * 100)} %)` : ''}`;
    const failed = Object.entries(row.captures)
      .filter(([, c]) => c.failed.length)
      .map(([name, c]) => `${name}: ${c.failed.join(', ')}`);
    const extras = Object.entries(row.captures)
      .filter(([name]) => name.startsWith('extra:'))
      .map(([name, c]) => `${name.slice(6)} ${s(c.ms)} s`);
    console.log(
      `| ${row.page} | ${[...statuses].join(', ')} | ${row.playwrightLoadMs === null ? 'no load in 30 s' : s(row.playwrightLoadMs)} | ${formats
        .map((f) => (row.captures[f] ? s(row.captures[f].ms) : '—'))
        .join(' | ')} | ${height} | ${recallText} | ${[...failed, ...extras].join('; ') || '—'} |`,
    );
  }
}

await main();
