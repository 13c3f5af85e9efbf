import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * Blank and bot-wall detection (issue 16): imitations of each case on 127.0.0.1, and ordinary pages
 * that must not be flagged (a dark page, one big image, a login form with a captcha widget, an
 * article about access-denied pages, the plain fixtures).
 */
let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    resolve: staticResolver({ 'site.example': '127.0.0.1' }),
  });
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const page = (path: string) => `http://site.example:${fixture.port}/${path}`;

async function take(params: Record<string, string>) {
  const res = await service.app.inject({
    method: 'GET',
    url: `/v1/take?${new URLSearchParams(params)}`,
    headers: { apikey: service.apiKey },
  });
  return res;
}

async function used(): Promise<number> {
  const res = await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: service.apiKey } });
  return (res.json() as { usage: { used: number } }).usage.used;
}

describe('blank captures', () => {
  it.each(['png', 'jpg', 'webp', 'avif'])('a page that paints nothing is flagged blank in %s', async (format) => {
    const res = await take({ url: page('diagnostics/blank.html'), format });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-shutter-warning']).toBe('blank');
  });

  it('omit_background on a page without a background: fully transparent is blank too', async () => {
    const res = await take({ url: page('diagnostics/blank.html'), omit_background: '1', styles: 'body{background:transparent}' });
    expect(res.headers['x-shutter-warning']).toBe('blank');
  });

  it('fail_if_blank=1: 422 blank_capture, not charged', async () => {
    const before = await used();
    const res = await take({ url: page('diagnostics/blank.html'), fail_if_blank: '1' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('blank_capture');
    expect(await used()).toBe(before);
  });

  it('fail_if_blank is for images only: 400 parameter_not_applicable with pdf', async () => {
    const res = await take({ url: page('diagnostics/blank.html'), format: 'pdf', fail_if_blank: '1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('parameter_not_applicable');
  });
});

describe('bot walls', () => {
  it.each([
    ['a Cloudflare interstitial (403)', 'diagnostics/cloudflare.html?status=403', 'cloudflare'],
    ['a Cloudflare interstitial (503)', 'diagnostics/cloudflare.html?status=503', 'cloudflare'],
    ['a captcha as the main content', 'diagnostics/captcha.html', 'captcha'],
    ['an access-denied page with 403', 'diagnostics/access-denied.html?status=403', 'access_denied'],
    ['a rate-limit page with 429', 'diagnostics/access-denied.html?status=429', 'access_denied'],
  ])('%s is flagged bot_challenge, and fail_on_bot_challenge=1 makes it a 422 (not charged)', async (_, path, kind) => {
    const res = await take({ url: page(path), format: 'png' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-shutter-warning']).toBe('bot_challenge');
    const before = await used();
    const failed = await take({ url: page(path), format: 'markdown', fail_on_bot_challenge: '1' });
    expect(failed.statusCode).toBe(422);
    expect(failed.json().error).toMatchObject({ code: 'bot_challenge', details: [{ parameter: 'fail_on_bot_challenge', value: kind }] });
    expect(await used()).toBe(before);
  });
});

describe('ordinary pages are not flagged', () => {
  it.each([
    ['a dark page with dim text', 'diagnostics/dark.html'],
    ['one big image', 'diagnostics/big-image.html'],
    ['a login form with a captcha widget', 'diagnostics/login-captcha.html'],
    ['an article about access-denied pages (200)', 'diagnostics/article-blocked.html'],
    ['the same access-denied text with 200', 'diagnostics/access-denied.html'],
    ['the simple fixture', 'simple.html'],
    ['the tall fixture, full page', 'tall.html'],
    ['a 404 page', 'status/404'],
  ])('%s: no warning, in png and jpg', async (_, path) => {
    for (const format of ['png', 'jpg']) {
      const res = await take({ url: page(path), format, ...(path === 'tall.html' ? { full_page: '1' } : {}) });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['x-shutter-warning']).toBeUndefined();
    }
  });
});

describe('false positives', () => {
  it('on the test fixtures, blank is flagged exactly on the pages whose viewport is one colour by construction, and bot_challenge never', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(new URL('../fixtures/', import.meta.url), { recursive: true }))
      .filter((f) => f.endsWith('.html') && !/^(diagnostics|security|stalls|fidelity)\//.test(f))
      .sort();
    expect(files.length).toBeGreaterThan(20);
    const flagged: string[] = [];
    const singleColour: string[] = [];
    for (const file of files) {
      const res = await take({ url: page(file), timeout: '20' });
      expect(res.statusCode, file).toBe(200);
      const warning = res.headers['x-shutter-warning'];
      expect(warning ?? '', file).not.toMatch(/bot_challenge/);
      if (typeof warning === 'string' && warning.includes('blank')) flagged.push(file);
      // The reference: sharp's own statistics of the decoded image, every channel one value.
      const { channels } = await sharp(res.rawPayload).stats();
      if (channels.every((c) => c.max === c.min)) singleColour.push(file);
    }
    expect(flagged).toEqual(singleColour);
    // A red band, a red body turning green, a white spacer above lazy images, a red chat frame.
    expect(flagged).toEqual(['bands.html', 'blocking/tawk-frame.html', 'delay.html', 'lazy.html', 'networkidle.html']);
  }, 180_000);
});

describe('navigation_failed explains itself', () => {
  it('a host that does not resolve: kind dns, in details', async () => {
    const res = await take({ url: `http://nowhere.example:${fixture.port}/`, timeout: '10' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'navigation_failed',
      details: { error: 'ERR_NAME_NOT_RESOLVED', kind: 'dns' },
    });
    expect(res.json().error.message).toMatch(/nowhere\.example/);
  });
});
