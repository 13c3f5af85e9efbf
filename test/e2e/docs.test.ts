import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/capture/chromium-path.js';
import { startService, type Service } from './harness.js';

/**
 * GET /docs in a real Chromium against the started service (issue 20, DESIGN.md §4.4): Swagger UI
 * renders every path of /openapi.json and the take parameters, under the page's own CSP, and
 * every request the page makes goes to the service itself (no CDN, no validator badge).
 */
let service: Service;
let browser: Browser;
let base: string;
let paths: string[];

beforeAll(async () => {
  // The service's own Chromium is not needed: nothing here captures.
  service = await startService({ startBrowser: false });
  base = await service.app.listen({ port: 0, host: '127.0.0.1' });
  paths = Object.keys((await (await fetch(`${base}/openapi.json`)).json()).paths as Record<string, unknown>);
  browser = await chromium.launch({ executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH), args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** A page that records every request it makes and every console error, CSP violations included. */
async function openDocs(hash = ''): Promise<{ page: Page; requests: string[]; problems: string[] }> {
  // Taller than the page: a deep link otherwise starts Swagger UI's animated scroll to the operation
  // (up to a second), which the clicks that follow would race. A CI run once hung on such a click.
  const context = await browser.newContext({ viewport: { width: 1280, height: 2400 } });
  const page = await context.newPage();
  // Under the test's own timeout, so that a stuck action reports what it waited for.
  page.setDefaultTimeout(20_000);
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    // Swagger UI's own deep links name operations by their generated ids (get_v1_status), and it
    // warns about the underscores when such a link is opened: its wording, not a fault of the page.
    if (m.type() === 'error' && !m.text().startsWith('Deprecated: escaping deep link whitespace')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${base}/docs${hash}`);
  await page.locator('.opblock-summary-path').first().waitFor();
  return { page, requests, problems };
}

describe('/docs in a browser', () => {
  it('renders every path of /openapi.json, with the take parameters, loading nothing from elsewhere', async () => {
    expect(paths).toEqual(expect.arrayContaining(['/v1/take', '/v1/status']));
    const { page, requests, problems } = await openDocs();
    expect(await page.title()).toBe('API reference · Shutter');
    const shown = await page.locator('.opblock-summary-path').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
    for (const path of paths) expect(shown, path).toContain(path);
    // The document's title and version, from /openapi.json.
    expect(await page.textContent('.info .title')).toContain('Shutter screenshot API');

    await page.click('#operations-default-get_v1_take .opblock-summary-control');
    const parameters = page.locator('#operations-default-get_v1_take tr[data-param-name]');
    await parameters.first().waitFor();
    const names = await parameters.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-param-name')));
    expect(names).toEqual(expect.arrayContaining(['url', 'format', 'full_page', 'viewport_width']));
    expect(await page.locator('#operations-default-get_v1_take tr[data-param-name="format"]').textContent()).toContain('png');

    // Deep links: the expanded operation is in the address.
    expect(new URL(page.url()).hash).toBe('#/default/get_v1_take');
    await page.close();

    const origins = new Set(requests.map((u) => new URL(u).origin));
    expect([...origins]).toEqual([base]);
    expect(requests.map((u) => new URL(u).pathname)).toEqual(expect.arrayContaining(['/docs', '/openapi.json']));
    expect(problems).toEqual([]);
  });

  it('opens a deep link expanded, and "Try it out" sends the key it was given in the apikey header', async () => {
    const { page, requests, problems } = await openDocs('#/default/get_v1_status');
    await page.locator('#operations-default-get_v1_status .try-out__btn').waitFor();

    await page.click('button.authorize');
    const dialog = page.locator('.dialog-ux');
    // One form per scheme of the document; the header one is the first.
    await dialog.locator('input[type="text"], input[type="password"]').first().fill(service.apiKey);
    await dialog.locator('button.authorize').first().click();
    await dialog.locator('button.btn-done, button.close-modal').first().click();

    await page.click('#operations-default-get_v1_status .try-out__btn');
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/status');
    await page.click('#operations-default-get_v1_status button.execute');
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('apikey')).toBe(service.apiKey);
    await expect
      .poll(() => page.locator('#operations-default-get_v1_status .live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');

    await page.close();
    expect([...new Set(requests.map((u) => new URL(u).origin))]).toEqual([base]);
    expect(problems).toEqual([]);
  });
});
