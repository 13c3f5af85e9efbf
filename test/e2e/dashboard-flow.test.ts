import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/capture/chromium-path.js';
import { parameterForms } from '../../src/options/parameter-forms.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/**
 * The dashboard in a real Chromium against the app listening on 127.0.0.1 (stub capture engine):
 * sign up → create a key → capture with it in the playground → the overview counts it. Also
 * proves the pages work under their own CSP (the playground script runs, nothing is blocked).
 */

let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH), args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await t?.app.close();
  await t?.keys.close();
});

describe('dashboard in a browser', () => {
  it('signs up, creates a key, captures with it in the playground, and shows the usage', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await page.click('text=Sign up');
    await page.fill('#email', 'browser@example.com');
    await page.fill('#password', 'a password for the browser');
    await Promise.all([page.waitForURL('**/dashboard/keys?welcome'), page.click('button:has-text("Create account")')]);
    expect(await page.textContent('.notice')).toContain('Welcome!');

    await page.fill('#key-name', 'from-the-browser');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('#new-key'))!.trim();
    expect(key).toMatch(/^shk_\w{38}$/);

    await page.click('text=Open the playground');
    await page.fill('#pg-key', key);
    await page.fill('#pg-url', 'https://example.com/from-playground');
    await page.fill('#pg-viewport_width', '800');
    expect(await page.textContent('#curl')).toBe(
      `curl -H "apikey: $SHUTTER_KEY" "${base}/v1/take?url=https%3A%2F%2Fexample.com%2Ffrom-playground&format=png&viewport_width=800" -o capture`,
    );
    await page.click('#pg-submit');
    const preview = page.locator('#preview img');
    await preview.waitFor();
    await page.waitForFunction(() => (document.querySelector('#preview img') as HTMLImageElement | null)?.naturalWidth === 4);
    expect(await page.textContent('#result-status')).toMatch(/^200 image\/png · \d+ bytes · 99 captures left this month$/);
    expect(t.engine.last).toMatchObject({ url: 'https://example.com/from-playground', viewport_width: 800 });

    await page.click('header >> text=Overview');
    expect(await page.textContent('#used')).toBe('1');
    expect(await page.textContent('#remaining')).toBe('99');
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.getAttribute(`#usage-chart g[data-day="${today}"]`, 'data-captures')).toBe('1');
    expect(await page.textContent('#usage-per-key')).toMatch(/from-the-browser.*1/s);

    await page.click('button:has-text("Log out")');
    await page.waitForURL('**/dashboard/login?signed_out');
    await page.goto(`${base}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the playground offers every parameter in its group; lists repeat and booleans are sent as chosen', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/signup`);
    await page.fill('#email', 'playground@example.com');
    await page.fill('#password', 'a password for the playground');
    await Promise.all([page.waitForURL('**/dashboard/keys?welcome'), page.click('button:has-text("Create account")')]);
    await page.fill('#key-name', 'pg');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('#new-key'))!.trim();
    await page.goto(`${base}/dashboard/playground`);

    for (const p of parameterForms()) {
      expect(await page.locator(`#pg-group-${p.group} [name="${p.name}"]`).count(), p.name).toBe(1);
    }
    await page.fill('#pg-key', key);
    await page.click('#pg-group-page summary');
    await page.fill('#pg-hide_selectors', '.a\n\n  .b  ');
    await page.selectOption('#pg-full_page', 'true');
    await page.selectOption('#pg-format', 'jpg');
    await page.click('#pg-group-waits summary');
    await page.selectOption('#pg-wait_until', 'ready');
    expect(await page.textContent('#curl')).toBe(
      `curl -H "apikey: $SHUTTER_KEY" "${base}/v1/take?url=https%3A%2F%2Fexample.com&format=jpg&full_page=true&hide_selectors=.a&hide_selectors=.b&wait_until=ready" -o capture`,
    );
    await page.click('#pg-submit');
    await page.locator('#preview img').waitFor();
    expect(t.engine.last).toMatchObject({ format: 'jpg', full_page: true, hide_selectors: ['.a', '.b'], wait_until: 'ready' });
    await context.close();
  });
});
