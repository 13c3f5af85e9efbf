import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { nameOf, pixels, startService, type Service } from './harness.js';

/**
 * Part of the page (selector, clip_*, scroll_into_view), transparent backgrounds, resized images,
 * and the avif and html formats, in real Chromium: checked by decoding what comes back.
 * test/fixtures/element/boxes.html places boxes of known colours at known document positions.
 */
let service: Service;
let fixtures: FixtureServer;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([startFixtureServer(), startService()]);
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

const take = (query: Record<string, string>) =>
  service.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { viewport_width: '1000', viewport_height: '600', ...query },
    headers: { apikey: service.apiKey },
  });
const boxes = () => `${fixtures.baseUrl}/element/boxes.html`;

describe('selector', () => {
  it('captures the element’s box only, at the pixel ratio', async () => {
    const res = await take({ url: boxes(), selector: '#red', device_scale_factor: '2' });
    expect(res.statusCode, res.payload).toBe(200);
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([240, 160]);
    for (const [x, y] of [
      [1, 1],
      [238, 158],
      [120, 80],
    ] as const)
      expect(nameOf(image.at(x, y))).toBe('red');
  });

  it('an element taller than the viewport is captured whole', async () => {
    const res = await take({ url: boxes(), selector: '#tall' });
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([100, 1500]);
    expect(nameOf(image.at(50, 10))).toBe('blue');
    expect(nameOf(image.at(50, 1490))).toBe('green');
  });

  it('no match: 422 selector_not_found, or the page with X-Shutter-Selector: not-found', async () => {
    const res = await take({ url: boxes(), selector: '#missing' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'selector_not_found', details: [{ parameter: 'selector', value: '#missing' }] });
    const lenient = await take({ url: boxes(), selector: '#missing', error_on_selector_not_found: '0' });
    expect(lenient.statusCode).toBe(200);
    expect(lenient.headers['x-shutter-selector']).toBe('not-found');
    expect((await pixels(lenient.rawPayload)).width).toBe(1000);
  });

  it('markdown and html hold only the element', async () => {
    const md = await take({ url: boxes(), selector: '#article', format: 'markdown' });
    expect(md.payload).toContain('Inside the article');
    expect(md.payload).not.toContain('Outside the article');
    const html = await take({ url: boxes(), selector: '#article', format: 'html' });
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.payload).toMatch(/^<div id="article">/);
    expect(html.payload).not.toContain('Outside the article');
  });
});

describe('clip_*', () => {
  it('captures that area of the document, also below the viewport', async () => {
    const res = await take({ url: boxes(), clip_x: '300', clip_y: '900', clip_width: '100', clip_height: '200' });
    expect(res.statusCode, res.payload).toBe(200);
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([100, 200]);
    expect(nameOf(image.at(50, 100))).toBe('green'); // the tall box's lower half (y 950–1700)
  });
});

describe('scroll_into_view', () => {
  it('the viewport shows the element at its top', async () => {
    const res = await take({ url: boxes(), scroll_into_view: '#footer' });
    expect(res.statusCode, res.payload).toBe(200);
    const image = await pixels(res.rawPayload);
    expect(nameOf(image.at(10, 10))).toBe('yellow');
    const adjusted = await pixels(
      (await take({ url: boxes(), scroll_into_view: '#footer', scroll_into_view_adjust_top: '-50' })).rawPayload,
    );
    expect(nameOf(adjusted.at(10, 10))).toBe('white');
    expect(nameOf(adjusted.at(10, 60))).toBe('yellow');
  });

  it('no match is 422 selector_not_found', async () => {
    const res = await take({ url: boxes(), scroll_into_view: '#nope' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details[0]).toMatchObject({ parameter: 'scroll_into_view' });
  });
});

describe('omit_background', () => {
  it.each(['png', 'webp'])('%s: transparent where the page paints nothing', async (format) => {
    const url = `${fixtures.baseUrl}/element/transparent.html`;
    const res = await take({ url, format, omit_background: '1', viewport_width: '200', viewport_height: '100' });
    expect(res.statusCode, res.payload).toBe(200);
    const { data, info } = await sharp(res.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * info.channels + 3];
    expect(alphaAt(10, 10)).toBe(255); // the red dot
    expect(alphaAt(150, 80)).toBe(0);
    const opaque = await sharp((await take({ url, format, viewport_width: '200', viewport_height: '100' })).rawPayload)
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(opaque.data[(80 * opaque.info.width + 150) * opaque.info.channels + 3]).toBe(255);
  });
});

describe('image_width and image_height', () => {
  it('one keeps the aspect ratio; both crop from the top centre', async () => {
    const one = await sharp((await take({ url: boxes(), image_width: '500' })).rawPayload).metadata();
    expect([one.width, one.height]).toEqual([500, 300]);
    const card = await take({ url: boxes(), image_width: '300', image_height: '300', format: 'jpg' });
    const meta = await sharp(card.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 300, 300]);
    // 1000×600 scaled to 500×300 tall... cover: scaled to 500 wide × 300 high, centre 300 kept: x 100–400 of the scaled image.
    const image = await pixels(card.rawPayload);
    expect(nameOf(image.at(5, 5))).toBe('white');
  });
});

describe('formats', () => {
  it('avif decodes to the viewport’s size', async () => {
    const res = await take({ url: boxes(), format: 'avif', quality: '60' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-type']).toBe('image/avif');
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['heif', 1000, 600]);
    const image = await pixels(res.rawPayload);
    expect(nameOf(image.at(100, 100), 40)).toBe('red');
  });

  it('html is the DOM after every step: hide_selectors and scripts are in it', async () => {
    const res = await take({
      url: boxes(),
      format: 'html',
      hide_selectors: '#red',
      scripts: "document.querySelector('h2').textContent = 'Changed by the script'",
    });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).toMatch(/^<!DOCTYPE html>/i);
    expect(res.payload).toContain('Changed by the script');
    expect(res.headers['content-disposition'] ?? '').not.toContain('attachment');
  });
});
