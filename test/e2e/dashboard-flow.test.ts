import type { Browser } from 'playwright-core';
import { launchBrowser, watchedPage, signUp } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySigningSecret } from '../../src/accounts/signing-secret.js';
import { signQuery } from '../../src/http/signed-link.js';
import { parameterForms } from '../../src/options/parameter-forms.js';
import { startFixtureServer, stopFixtureServer } from '../helpers/fixture-server.js';
import { buildTestApp, TEST_SIGNING_SECRET, type TestApp } from '../helpers/stub-engine.js';

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
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.app.close();
  await t?.keys.close();
});

describe('dashboard in a browser', () => {
  it('signs up, creates a key, captures with it in the playground, and shows the usage', async () => {
    const { context, page, problems } = await watchedPage(browser);

    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await signUp(page, 'browser@example.com', 'a password for the browser');
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

  it('builds a signed link in the playground that works without the key, and not once altered', async () => {
    const fixture = await startFixtureServer();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${base}/dashboard/signup`);
      await page.fill('#email', 'signer@example.com');
      await page.fill('#password', 'a password for signed links');
      await Promise.all([page.waitForURL('**/dashboard/keys?welcome'), page.click('button:has-text("Create account")')]);
      await page.fill('#key-name', 'embeds');
      await page.click('button:has-text("Create key")');
      await page.click('text=Open the playground');

      const accessKey = await page.inputValue('#sl-key');
      const secret = (await page.getAttribute('#sl-key option:checked', 'data-signing-secret'))!;
      expect(secret).toBe(keySigningSecret(Buffer.from(TEST_SIGNING_SECRET), accessKey));
      const target = `${fixture.baseUrl}/simple.html`;
      await page.fill('#pg-url', target);
      await page.fill('#pg-viewport_width', '640');
      await page.selectOption('#sl-expires', '3600');
      const before = Math.floor(Date.now() / 1000);
      await page.click('#sl-build');
      await page.waitForFunction(() => (document.querySelector('#sl-url') as HTMLInputElement).value !== '');
      const link = await page.inputValue('#sl-url');

      // The curl command's parameters, in its order and encoding, then expires, access_key, signature.
      const curl = (await page.textContent('#curl'))!;
      const curlQuery = /\/v1\/take\?([^"]+)"/.exec(curl)![1]!;
      expect(curlQuery).toBe(`url=${encodeURIComponent(target)}&format=png&viewport_width=640`);
      const [signed, signature] = link.slice(`${base}/v1/take?`.length).split('&signature=') as [string, string];
      expect(link.startsWith(`${base}/v1/take?`)).toBe(true);
      const expires = Number(/&expires=(\d+)&/.exec(signed)?.[1]);
      expect(signed).toBe(`${curlQuery}&expires=${expires}&access_key=${accessKey}`);
      expect(expires - before).toBeGreaterThanOrEqual(3599);
      expect(expires - before).toBeLessThanOrEqual(3605);
      expect(signature).toMatch(/^[0-9a-f]{64}$/);
      expect(signature).toBe(signQuery(signed, secret));
      expect(await page.inputValue('#sl-img')).toBe(`<img src="${link.replaceAll('&', '&amp;')}" alt="Screenshot of ${target}">`);
      expect(await page.textContent('#sl-status')).toContain('Signed with embeds');

      // Fetched by someone without any key or cookie.
      const calls = t.engine.calls.length;
      const res = await fetch(link);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect([...new Uint8Array(await res.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      expect(t.engine.calls.length).toBe(calls + 1);
      expect(t.engine.last).toMatchObject({ url: target, viewport_width: 640 });

      // One character changed, in a parameter or in the signature: 403 signature_invalid, no capture.
      const lastChar = link.at(-1) === '0' ? '1' : '0';
      for (const altered of [link.replace('viewport_width=640', 'viewport_width=641'), link.slice(0, -1) + lastChar]) {
        expect(altered.length).toBe(link.length);
        const refused = await fetch(altered);
        expect(refused.status, altered).toBe(403);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('signature_invalid');
      }
      expect(t.engine.calls.length).toBe(calls + 1);

      // The <img> snippet works as is in a page with no session.
      const stranger = await browser.newContext();
      const embed = await stranger.newPage();
      await embed.setContent(await page.inputValue('#sl-img'));
      await embed.waitForFunction(() => document.querySelector('img')!.naturalWidth === 4);
      await stranger.close();

      // A changed parameter makes the shown link stale.
      await page.fill('#pg-viewport_width', '1024');
      expect(await page.inputValue('#sl-url')).toBe('');

      // Over plain http on a name other than localhost there is no crypto.subtle: the page says so.
      const playground = await page.content();
      await context.route('http://shutter.test/**', async (route) => {
        const path = new URL(route.request().url()).pathname;
        if (path.startsWith('/dashboard/assets/')) return route.fulfill({ response: await route.fetch({ url: `${base}${path}` }) });
        return route.fulfill({ contentType: 'text/html; charset=utf-8', body: playground });
      });
      const insecure = await context.newPage();
      await insecure.goto('http://shutter.test/dashboard/playground');
      await insecure.waitForFunction(() => (document.querySelector('#sl-build') as HTMLButtonElement).disabled);
      expect(await insecure.textContent('#sl-status')).toContain('secure context');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await stopFixtureServer(fixture);
    }
  });
});
