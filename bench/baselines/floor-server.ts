/**
 * Baseline (a), the floor: the minimal do-it-yourself service with ONE warm playwright-core browser.
 * Per request: newContext → newPage → goto (load) → default page.screenshot() (or page.pdf()) → close.
 * format=markdown: goto (load) → page.content(), answered as text/html: the floor has no converter,
 * so this stands for "Playwright's load on the same page" in the markdown rows.
 *
 * goto is bounded by BENCH_FLOOR_GOTO_TIMEOUT_S (default 30 s, Playwright's own default): on a page
 * whose `load` never fires, the floor captures anyway when it times out and says so in
 * `X-Bench-Warning: load_timeout`, so the time is reported, not hidden behind an error.
 */
import { chromium, errors, type Browser } from 'playwright-core';
import { baselineChromium, runBaseline, type BaselineAnswer, type BaselineRequest } from './take-server.js';

let browser: Browser | undefined;
const gotoTimeoutMs = Number(process.env.BENCH_FLOOR_GOTO_TIMEOUT_S ?? 30) * 1000;

async function capture(request: BaselineRequest): Promise<BaselineAnswer> {
  if (!browser) throw new Error('browser not started');
  const context = await browser.newContext({ viewport: { width: request.width, height: request.height } });
  try {
    const page = await context.newPage();
    let loadTimedOut = false;
    try {
      await page.goto(request.url, { timeout: gotoTimeoutMs });
    } catch (error) {
      if (!(error instanceof errors.TimeoutError)) throw error;
      loadTimedOut = true;
    }
    const headers: Record<string, string> = loadTimedOut ? { 'x-bench-warning': 'load_timeout' } : {};
    const body =
      request.format === 'markdown'
        ? Buffer.from(await page.content(), 'utf8')
        : request.format === 'pdf'
          ? await page.pdf({ format: 'A4', printBackground: true })
          : request.format === 'jpg'
            ? await page.screenshot({ type: 'jpeg', quality: request.quality, fullPage: request.fullPage })
            : await page.screenshot({ fullPage: request.fullPage });
    return { body, headers };
  } finally {
    await context.close();
  }
}

runBaseline({
  capture,
  formats: ['png', 'jpg', 'pdf', 'markdown'],
  async start() {
    if (!Number.isFinite(gotoTimeoutMs) || gotoTimeoutMs <= 0) throw new Error('BENCH_FLOOR_GOTO_TIMEOUT_S must be a positive number');
    browser = await chromium.launch(baselineChromium());
  },
  async stop() {
    await browser?.close();
  },
});
