import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page, Response } from 'playwright-core';
import { launchBrowser, signUp, watchedPage } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startService, type Service } from './harness.js';

/**
 * The dashboard's Jobs page in a real Chromium, against the started service (real capture engine,
 * jobs running, files in the local store), listening on 127.0.0.1: a user signs up, runs the
 * empty page's curl command as written, queues a capture through the API, watches the job succeed
 * on the Jobs page and opens the result link: a PNG.
 */

let service: Service;
let browser: Browser;
let base: string;

beforeAll(async () => {
  // example.com (the empty page's curl command) resolves to this machine, where nothing answers
  // https: that job fails fast and the same way everywhere, online or not.
  service = await startService({ store: true, resolve: staticResolver({ 'example.com': '127.0.0.1' }) });
  base = await service.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** Reloads the Jobs page until the job's row has ended (bounded), and returns its status. */
async function untilEnded(page: Page, id: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await page.getAttribute(`tr[data-job-id="${id}"]`, 'data-status', { timeout: 1000 }).catch(() => null);
    if (status === 'succeeded' || status === 'failed') return status;
    if (Date.now() > deadline) throw new Error(`job ${id} is still ${status ?? 'not listed'} after ${timeoutMs} ms`);
    await page.waitForTimeout(250);
    await page.reload();
  }
}

describe('Jobs page in a browser', () => {
  it('shows a queued job succeed, with a result link that opens the PNG; the empty page’s curl command queues a job as written', async () => {
    const { context, page, problems } = await watchedPage(browser);

    await page.goto(`${base}/dashboard/jobs`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await signUp(page, 'jobs@example.com', 'a password for the jobs page');
    await page.fill('#key-name', 'jobs');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('#new-key'))!.trim();

    await page.click('header >> text=Jobs');
    expect(new URL(page.url()).pathname).toBe('/dashboard/jobs');
    await page.locator('#no-jobs').waitFor();
    const curl = (await page.textContent('#jobs-curl'))!;
    expect(curl).toContain(`"${base}/v1/take"`);

    // The command as the page shows it, with the key in SHUTTER_KEY.
    const { stdout } = await promisify(execFile)('sh', ['-c', `${curl} -s -w '\\n%{http_code}'`], {
      env: { ...process.env, SHUTTER_KEY: key },
    });
    const [body, code] = stdout.trim().split('\n');
    expect(code, stdout).toBe('202');
    const fromCurl = (JSON.parse(body!) as { job_id: string; status: string }).job_id;

    // The user's own capture, queued through the API.
    const res = await fetch(`${base}/v1/take`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({
        html: '<body style="margin:0;background:#2455d6"><h1 style="color:#fff">queued from the test</h1></body>',
        viewport_width: 640,
        viewport_height: 400,
        async: true,
        external_id: 'browser-order-7',
      }),
    });
    expect(res.status).toBe(202);
    const id = ((await res.json()) as { job_id: string }).job_id;

    await page.reload();
    expect(await page.locator('#no-jobs').count()).toBe(0);
    expect(await untilEnded(page, id)).toBe('succeeded');
    const row = page.locator(`tr[data-job-id="${id}"]`);
    expect(await row.locator('.job-status').textContent()).toBe('succeeded');
    expect(await row.locator('td.external-id').textContent()).toBe('browser-order-7');
    expect(await row.locator('td.url').textContent()).toBe('html');
    expect(await row.locator('td.webhook').textContent()).toBe('none');
    const link = row.locator('a.result-link');
    expect(await link.getAttribute('target')).toBe('_blank');
    const href = (await link.getAttribute('href'))!;
    expect(href.startsWith(`${base}/v1/files/`)).toBe(true);

    // The link opens the stored file in a new tab: a PNG of the page, 640×400.
    const responses: Response[] = [];
    context.on('response', (r) => responses.push(r));
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(href);
    const file = responses.find((r) => r.url() === href);
    expect(file?.status()).toBe(200);
    expect(file!.headers()['content-type']).toBe('image/png');
    const png = await file!.body();
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([640, 400]);
    expect(await tab.evaluate(() => document.contentType)).toBe('image/png');
    await tab.close();

    // The curl command's job is listed too; example.com answers nothing here, so it fails and says why.
    expect(await untilEnded(page, fromCurl)).toBe('failed');
    const failed = page.locator(`tr[data-job-id="${fromCurl}"]`);
    expect(await failed.locator('td.external-id').textContent()).toBe('my-first-job');
    expect(await failed.locator('td.url').textContent()).toBe('https://example.com');
    expect(await failed.locator('code.error-text').textContent()).toBe('navigation_failed');
    expect(await failed.locator('a').count()).toBe(0);

    // Newest first; both belong to this account only.
    const ids = await page.locator('#jobs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-id')));
    expect(ids).toEqual([id, fromCurl]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
