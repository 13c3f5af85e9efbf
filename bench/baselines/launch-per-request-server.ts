/**
 * Baseline (b): the common do-it-yourself service that launches a browser per request.
 * Per request: chromium.launch → newPage → goto → default page.screenshot() (or page.pdf()) → browser.close.
 */
import { chromium, type Browser } from 'playwright-core';
import { baselineChromium, runBaseline, type BaselineRequest } from './take-server.js';

const open = new Set<Browser>();

async function capture(request: BaselineRequest): Promise<Buffer> {
  const browser = await chromium.launch(baselineChromium());
  open.add(browser);
  try {
    const page = await browser.newPage({ viewport: { width: request.width, height: request.height } });
    await page.goto(request.url);
    if (request.format === 'pdf') return await page.pdf({ format: 'A4', printBackground: true });
    if (request.format === 'jpg') return await page.screenshot({ type: 'jpeg', quality: request.quality, fullPage: request.fullPage });
    return await page.screenshot({ fullPage: request.fullPage });
  } finally {
    open.delete(browser);
    await browser.close();
  }
}

runBaseline({
  capture,
  async stop() {
    await Promise.all([...open].map((b) => b.close().catch(() => undefined)));
  },
});
