/**
 * Baseline (a), the floor: the minimal do-it-yourself service with ONE warm playwright-core browser.
 * Per request: newContext → newPage → goto (load) → default page.screenshot() (or page.pdf()) → close.
 * format=markdown: goto (load) → page.content(), answered as text/html: the floor has no converter,
 * so this stands for "Playwright's load on the same page" in the markdown rows; with
 * BENCH_FLOOR_MARKDOWN=innertext (the real-pages bench) `document.body.innerText` instead.
 * BENCH_FLOOR_PDF_TAGGED=1: a tagged PDF, the document Shutter prints by default (pdf_tagged).
 *
 * A screenshot Chromium refuses for want of a frame is asked again (whenFramed, below).
 * selector=…: the first match's `locator.screenshot()`; image_width=…: the screenshot resized by sharp
 * (as a do-it-yourself service would), png only.
 *
 * goto is bounded by BENCH_FLOOR_GOTO_TIMEOUT_S (default 30 s, Playwright's own default): on a page
 * whose `load` never fires, the floor captures anyway when it times out and says so in
 * `X-Bench-Warning: load_timeout`, so the time is reported, not hidden behind an error.
 */
import { chromium, errors, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { baselineChromium, runBaseline, type BaselineAnswer, type BaselineRequest } from './take-server.js';

let browser: Browser | undefined;
const gotoTimeoutMs = Number(process.env.BENCH_FLOOR_GOTO_TIMEOUT_S ?? 30) * 1000;
/** BENCH_FLOOR_MARKDOWN=innertext: the page's text (which lays the page out) instead of its HTML. */
const markdownInnerText = process.env.BENCH_FLOOR_MARKDOWN === 'innertext';
const pdfTagged = process.env.BENCH_FLOOR_PDF_TAGGED === '1';

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
    const warnings = loadTimedOut ? ['load_timeout'] : [];
    const body =
      request.format === 'markdown'
        ? Buffer.from(markdownInnerText ? await page.evaluate(() => document.body.innerText) : await page.content(), 'utf8')
        : request.format === 'pdf'
          ? await page.pdf({ format: 'A4', printBackground: true, tagged: pdfTagged })
          : request.format === 'jpg'
            ? await whenFramed(() => page.screenshot({ type: 'jpeg', quality: request.quality, fullPage: request.fullPage }), warnings)
            : await whenFramed(() => png(page, request), warnings);
    return { body, headers: warnings.length ? { 'x-bench-warning': warnings.join(', ') } : {} };
  } finally {
    await context.close();
  }
}

/**
 * On a busy machine Chromium sometimes has no frame yet right after load and answers "Unable to
 * capture screenshot"; Shutter and the bare-CDP bound wait a frame and ask again, and so does the
 * floor (up to three tries, 100 ms apart), flagged `screenshot_retry` so the report counts it.
 */
async function whenFramed(shoot: () => Promise<Buffer>, warnings: string[]): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await shoot();
    } catch (error) {
      if (attempt >= 3 || !String((error as Error).message).includes('Unable to capture screenshot')) throw error;
      if (!warnings.includes('screenshot_retry')) warnings.push('screenshot_retry');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A png: the page, or the first element the selector matches, resized when image_width asks. */
async function png(page: Page, request: BaselineRequest): Promise<Buffer> {
  const shot = request.selector
    ? await page.locator(request.selector).first().screenshot()
    : await page.screenshot({ fullPage: request.fullPage });
  return request.imageWidth ? await sharp(shot).resize({ width: request.imageWidth }).png().toBuffer() : shot;
}

runBaseline({
  capture,
  formats: ['png', 'jpg', 'pdf', 'markdown'],
  extras: ['selector', 'image_width'],
  async start() {
    if (!Number.isFinite(gotoTimeoutMs) || gotoTimeoutMs <= 0) throw new Error('BENCH_FLOOR_GOTO_TIMEOUT_S must be a positive number');
    browser = await chromium.launch(baselineChromium());
  },
  async stop() {
    await browser?.close();
  },
});
