import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '../../src/capture/chromium-path.js';

/** Debian's Chromium, as the dashboard and docs tests drive it. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(process.env.SHUTTER_CHROMIUM_PATH), args: ['--no-sandbox'] });
}

/** A page in a context of its own; `problems` collects its console errors and uncaught page errors (a test expects none). */
export async function watchedPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return { context, page, problems };
}

/** Signs up through the dashboard's form, starting on its log-in page; ends on the keys page that welcomes the new account. */
export async function signUp(page: Page, email: string, password: string): Promise<void> {
  await page.click('text=Sign up');
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL('**/dashboard/keys?welcome'), page.click('button:has-text("Create account")')]);
}
