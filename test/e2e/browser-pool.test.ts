import pino from 'pino';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/capture/browser-pool.js';
import { findChromium } from '../../src/capture/chromium-path.js';

const logger = pino({ level: 'silent' });
let pool: BrowserPool | undefined;

const newPool = (maxCapturesPerBrowser = 100, warmContext?: (version: string) => BrowserContextOptions) => {
  pool = new BrowserPool({ executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH), maxCapturesPerBrowser, logger, warmContext });
  return pool;
};

/** When the page a capture got was created (its about:blank document's time origin), and when the capture asked. */
const pageAge = async (p: BrowserPool, options: BrowserContextOptions) => {
  const askedAt = Date.now();
  const createdAt = await p.withPage(options, ({ page }) => page.evaluate(() => performance.timeOrigin));
  return askedAt - createdAt;
};

/** Renders a trivial page and returns the browser that served it. */
const render = (p: BrowserPool) =>
  p.withPage({ viewport: { width: 300, height: 200 } }, async ({ page, context }) => {
    await page.setContent('<p>ok</p>');
    expect(await page.textContent('p')).toBe('ok');
    return context.browser() as Browser;
  });

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('browser pool', () => {
  it('relaunches Chromium after it crashes', async () => {
    const p = newPool();
    const first = await render(p);
    const disconnected = new Promise<void>((resolve) => first.once('disconnected', () => resolve()));
    const cdp = await first.newBrowserCDPSession();
    await cdp.send('Browser.crash' as never).catch(() => undefined);
    await disconnected;
    expect(p.connected).toBe(false);
    const second = await render(p);
    expect(second).not.toBe(first);
    expect(second.isConnected()).toBe(true);
    expect(p.connected).toBe(true);
  });

  it('replaces the browser after its capture budget, letting the old one drain', async () => {
    const p = newPool(2);
    const a = await render(p);
    const b = await render(p);
    const c = await render(p);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    await expect.poll(() => a.isConnected(), { timeout: 5000 }).toBe(false);
    expect(c.isConnected()).toBe(true);
  });

  it('opens a page with the default context as soon as the browser starts, for the first capture', async () => {
    const options = { viewport: { width: 300, height: 200 }, locale: 'en-US' };
    const versions: string[] = [];
    const warm = newPool(100, (version) => {
      versions.push(version);
      return options;
    });
    await warm.start();
    expect(versions).toEqual([warm.version]);
    expect(await warm.spareOpened()).toBe(true);
    // The page the capture gets was created before the capture asked for it.
    expect(await pageAge(warm, options)).toBeGreaterThan(0);
    await warm.close();

    // Without it, the first capture's page is opened on demand, after it was asked for.
    const cold = newPool();
    await cold.start();
    expect(await cold.spareOpened()).toBe(false);
    expect(await pageAge(cold, options)).toBeLessThanOrEqual(0);
  });

  it("hands out the page with its own CDP session already attached (a spare's and a fresh one's)", async () => {
    const p = newPool();
    for (let i = 0; i < 3; i++) {
      const title = await p.withPage({}, async ({ page, cdp }) => {
        await page.setContent(`<title>page ${i}</title>`);
        const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
        return result.value as string;
      });
      expect(title).toBe(`page ${i}`);
    }
  });

  it('gives every capture a context of its own (no state shared between callers)', async () => {
    const p = newPool();
    await p.withPage({}, async ({ page }) => {
      await page.setContent('<p>x</p>');
      await page.evaluate(() => localStorage.length).catch(() => undefined);
      await page.context().addCookies([{ name: 'secret', value: '1', url: 'http://example.test/' }]);
    });
    const cookies = await p.withPage({}, async ({ context }) => context.cookies('http://example.test/'));
    expect(cookies).toEqual([]);
  });
});
