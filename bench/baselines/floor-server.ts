/**
 * Baseline (a), the floor: the minimal do-it-yourself service with ONE warm playwright-core browser.
 * Per request: newContext → newPage → goto → default page.screenshot() (or page.pdf()) → close.
 */
import { chromium, type Browser } from 'playwright-core';
import { baselineChromium, runBaseline, type BaselineRequest } from './take-server.js';

let browser: Browser | undefined;

async function capture(request: BaselineRequest): Promise<Buffer> {
  if (!browser) throw new Error('browser not started');
  const context = await browser.newContext({ viewport: { width: request.width, height: request.height } });
  try {
    const page = await context.newPage();
    await page.goto(request.url);
    if (request.format === 'pdf') return await page.pdf({ format: 'A4', printBackground: true });
    if (request.format === 'jpg') return await page.screenshot({ type: 'jpeg', quality: request.quality, fullPage: request.fullPage });
    return await page.screenshot({ fullPage: request.fullPage });
  } finally {
    await context.close();
  }
}

runBaseline({
  capture,
  async start() {
    browser = await chromium.launch(baselineChromium());
  },
  async stop() {
    await browser?.close();
  },
});
