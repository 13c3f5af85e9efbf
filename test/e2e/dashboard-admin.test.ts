import type { Browser } from 'playwright-core';
import { launchBrowser, watchedPage } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/password.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/**
 * The operator admin in a real Chromium against the app listening on 127.0.0.1 (stub capture
 * engine): an operator logs in, finds an account by email, moves it to another plan and disables it
 * with the forms, the account's key stops working, and the audit log shows both actions.
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

describe('operator admin in a browser', () => {
  it('logs in, searches an account, changes its plan and disables it; the audit log shows both', async () => {
    const services = t.accounts;
    const root = await services.accounts.create({
      email: 'root@example.com',
      plan: 'scale',
      passwordHash: await hashPassword('the operator password'),
    });
    if (!root.ok) throw new Error(root.message);
    // What `shutter accounts set-role --email root@example.com --role operator` does.
    expect((await services.admin.setRole(null, root.value.id, 'operator')).ok).toBe(true);
    const target = await services.accounts.create({ email: 'customer@example.com', plan: 'free' });
    if (!target.ok) throw new Error(target.message);
    for (const other of ['someone@example.org', 'customer-care@example.org'])
      expect((await services.accounts.create({ email: other, plan: 'free' })).ok).toBe(true);
    const issued = await services.keyManager.issue(target.value, 'prod');
    if (!issued.ok) throw new Error(issued.message);
    const status = () => fetch(`${base}/v1/status`, { headers: { apikey: issued.value.key } });
    expect((await status()).status).toBe(200);

    const { context, page, problems } = await watchedPage(browser);

    await page.goto(`${base}/dashboard/login`);
    await page.fill('#email', 'root@example.com');
    await page.fill('#password', 'the operator password');
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button:has-text("Log in")')]);
    await page.click('header >> text=Admin');
    await page.waitForURL('**/dashboard/admin');
    expect(await page.locator('#admin-accounts tr[data-email]').count()).toBe(5);

    await page.fill('#admin-q', 'Customer@');
    await Promise.all([page.waitForURL('**/dashboard/admin?q=Customer%40'), page.click('#admin-search button')]);
    const row = page.locator('#admin-accounts tr[data-email="customer@example.com"]');
    expect(await page.locator('#admin-accounts tr[data-email]').count()).toBe(1);
    expect(await row.getAttribute('data-plan')).toBe('free');
    expect(await row.locator('td.keys').textContent()).toBe('1');

    await row.locator('select[name="plan"]').selectOption('growth');
    await Promise.all([
      page.waitForURL('**/dashboard/admin?q=Customer%40&done=plan'),
      row.locator('button:has-text("Change plan")').click(),
    ]);
    expect(await page.textContent('.notice')).toBe('Plan changed.');
    expect(await row.getAttribute('data-plan')).toBe('growth');
    expect(await row.locator('select[name="plan"]').inputValue()).toBe('growth');
    const moved = await status();
    expect(((await moved.json()) as { plan: { name: string; monthly_quota: number } }).plan).toMatchObject({
      name: 'growth',
      monthly_quota: 10_000,
    });

    await Promise.all([
      page.waitForURL('**/dashboard/admin?q=Customer%40&done=disabled'),
      row.locator('button:has-text("Disable")').click(),
    ]);
    expect(await page.textContent('.notice')).toContain('Account disabled');
    expect(await row.getAttribute('data-state')).toBe('disabled');
    const refused = await status();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('account_disabled');
    expect(await row.locator('button:has-text("Enable")').count()).toBe(1);

    await page.click('.admin-nav >> text=Audit log');
    await page.waitForURL('**/dashboard/admin/audit');
    const entries = await page
      .locator('#admin-audit tr[data-action]')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent!.trim())));
    expect(entries.slice(0, 2)).toEqual([
      ['root@example.com', 'disabled', 'customer@example.com', expect.stringMatching(/^\d+ dashboard sessions? ended$/)],
      ['root@example.com', 'changed plan', 'customer@example.com', 'free → growth'],
    ]);
    expect(entries).toContainEqual(['command line', 'changed role', 'root@example.com', 'user → operator']);

    await page.click('.admin-nav >> text=Usage');
    await page.waitForURL('**/dashboard/admin/usage');
    expect(await page.textContent('#admin-total')).toBe('0');
    expect(problems).toEqual([]);
    await context.close();
  });
});
