import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { colourDistance, nameOf, pixels, startService, type Rgb, type Service } from './harness.js';

const BAND_COLOURS: Rgb[] = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
  [255, 255, 0],
  [0, 255, 255],
  [255, 0, 255],
  [128, 128, 128],
  [255, 255, 255],
  [0, 0, 0],
  [255, 128, 0],
];
const HEADER: Rgb = [0x12, 0x34, 0x56];

let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService();
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const take = (query: Record<string, string>) =>
  service.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { full_page: '1', ...query },
    headers: { apikey: service.apiKey },
  });

/** Every 1000 px band must show its own colour at three heights: no repeated or smeared content. */
function expectBands(image: Pick<Awaited<ReturnType<typeof pixels>>, 'at'>, bands: number, skipTop = 0) {
  const wrong: string[] = [];
  for (let band = 0; band < bands; band++) {
    for (const offset of [150, 500, 900]) {
      const y = band * 1000 + offset;
      if (y < skipTop) continue;
      const want = BAND_COLOURS[band % 10]!;
      const got = image.at(640, y);
      if (colourDistance(got, want) > 40) wrong.push(`y=${y}: ${got.join(',')} instead of ${want.join(',')}`);
    }
  }
  expect(wrong).toEqual([]);
}

describe('full-page captures of tall pages', () => {
  it('a 12 000 px page: one image 12 000 px tall with every band in order', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=12000` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBeUndefined();
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([1280, 12000]);
    expectBands(image, 12);
  });

  it('a 25 000 px page is cut at 20 000 px, stitched from sections, with every band in order and the fixed header once', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=25000&header=1` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBe('height');
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([1280, 20000]);
    expectBands(image, 20, 100);
    expect(colourDistance(image.at(640, 10), HEADER)).toBeLessThan(24);
    // Section boundaries (8 192 px apart) must show the page, not the fixed header again.
    for (const y of [8192 + 10, 16384 + 10]) expect(colourDistance(image.at(640, y), HEADER)).toBeGreaterThan(60);
  });

  it('at scale 2 (40 000 device px) a page is stitched from sections too, every band in order and the fixed header once', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=20000&header=1`, device_scale_factor: '2', viewport_width: '400' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBeUndefined();
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([800, 40000]);
    expectBands({ at: (x: number, y: number) => image.at(x, y * 2) }, 20);
    expect(colourDistance(image.at(400, 20), HEADER)).toBeLessThan(24);
    // Section boundaries (8 192 device px apart) must show the page, not the fixed header again.
    for (const y of [8192, 16384, 24576, 32768]) expect(colourDistance(image.at(400, y + 20), HEADER)).toBeGreaterThan(60);
  });

  it('jpg of a stitched page has the full height', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=18000`, format: 'jpg', quality: '90' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([1280, 18000]);
    expectBands(image, 18);
  });

  it('webp stops at its 16 383 px limit and says so', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=18000`, format: 'webp', quality: '90' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBe('height');
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([1280, 16383]);
    expectBands(image, 16);
  });

  it('device_scale_factor 2 doubles a full-page capture in both directions', async () => {
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=3000`, device_scale_factor: '2', viewport_width: '400' });
    expect(res.statusCode).toBe(200);
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([800, 6000]);
  });

  it('the pixel budget cuts a full page that would be too large, and says so', async () => {
    // 1280 × 3 × 3 device px per CSS row: 60 M pixels allow 5 208 rows.
    const res = await take({ url: `${fixture.baseUrl}/bands.html?h=12000`, device_scale_factor: '3' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBe('height');
    const image = await pixels(res.rawPayload);
    expect(image.width).toBe(3840);
    expect(image.width * image.height).toBeLessThanOrEqual(60_000_000);
    expect(image.height).toBeGreaterThan(15_000);
  });

  it('a viewport over the pixel budget is refused up front with 400', async () => {
    const res = await take({
      url: `${fixture.baseUrl}/bands.html`,
      full_page: '0',
      viewport_width: '3840',
      viewport_height: '10000',
      device_scale_factor: '3',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_parameter');
    expect(res.json().error.message).toMatch(/pixel/);
  });
});

describe('every format with full_page', () => {
  for (const format of ['png', 'jpg', 'webp', 'gif']) {
    it(`${format}: the whole 3 000 px page`, async () => {
      const res = await take({ url: `${fixture.baseUrl}/bands.html?h=3000`, format });
      expect(res.statusCode).toBe(200);
      const image = await pixels(res.rawPayload);
      expect([image.width, image.height]).toEqual([1280, 3000]);
      expectBands(image, 3);
    });
  }

  it('pdf and markdown accept full_page (documents are whole pages anyway)', async () => {
    const pdf = await take({ url: `${fixture.baseUrl}/bands.html?h=3000`, format: 'pdf' });
    expect(pdf.statusCode).toBe(200);
    const md = await take({ url: `${fixture.baseUrl}/lazy.html`, format: 'markdown' });
    expect(md.statusCode).toBe(200);
    expect(md.body).toContain('![lazy]');
  });
});

describe('lazy content in full-page captures', () => {
  it('a loading=lazy image 5 000 px down and an IntersectionObserver box 10 300 px down are loaded', async () => {
    const res = await take({ url: `${fixture.baseUrl}/lazy.html` });
    expect(res.statusCode).toBe(200);
    const image = await pixels(res.rawPayload);
    expect(image.height).toBe(11_600);
    expect(nameOf(image.at(200, 5150))).toBe('green');
    expect(nameOf(image.at(200, 10_450))).toBe('green');
    // The page was scrolled back to the top before capturing.
    expect(nameOf(image.at(600, 100))).toBe('white');
  });

  it('without full_page nothing is scrolled: the viewport shows the top', async () => {
    const res = await take({ url: `${fixture.baseUrl}/lazy.html`, full_page: '0' });
    const image = await pixels(res.rawPayload);
    expect([image.width, image.height]).toEqual([1280, 800]);
  });
});
