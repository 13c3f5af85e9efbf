import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureRaw } from '../../src/capture/render/screenshot.js';
import { encodePngRoute, type PngRoute } from '../../src/encoders/png.js';
import type { RawImage } from '../../src/encoders/raw-image.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';
import { fixturePhoto } from '../../bench/lib/fixture-photo.js';
import { launchBrowser } from '../helpers/browser.js';

// Issue 21, "PNG size": on the bench's pages (bench/fixtures/, with the bench's grainy photos),
// Shutter's PNG is no larger than Chromium's fast PNG it started from nor than the floor's
// (Playwright's page.screenshot(), Chromium's best compression), with the same pixels. The heavy
// page (subresources only the bench's fixture server makes) is measured by bench/png-size.ts.

let server: Server | undefined;
let base = '';
let browser: Browser | undefined;

const BENCH_FIXTURES = new URL('../../bench/fixtures/', import.meta.url);

beforeAll(async () => {
  const photos = await Promise.all(Array.from({ length: 16 }, (_, v) => fixturePhoto(400, 260, v)));
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const m = /^\/img\/photo-(\d{1,4})\.png$/.exec(path);
    if (m) return res.writeHead(200, { 'content-type': 'image/png' }).end(photos[Number(m[1]) % photos.length]);
    if (/^\/[\w-]+\.html$/.test(path)) {
      return readFile(new URL(`.${path}`, BENCH_FIXTURES)).then(
        (body) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body),
        () => res.writeHead(404).end(),
      );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

const rgba = (png: Buffer | RawImage) =>
  (Buffer.isBuffer(png) || png.kind === 'encoded'
    ? sharp(Buffer.isBuffer(png) ? png : png.data)
    : sharp(png.data, { raw: { width: png.width, height: png.height, channels: png.channels } })
  )
    .ensureAlpha()
    .raw()
    .toBuffer();

describe('PNG size on the bench pages (real Chromium)', () => {
  const natural: PngRoute[] = ['gradient', 'filtered', 'adaptive'];
  const pages: Array<[string, boolean, PngRoute[]]> = [
    ['simple.html', false, ['flat']],
    ['text.html', false, ['flat']],
    ['gradient.html', false, ['gradient']],
    ['photo.html', false, ['filtered']],
    ['smooth.html', false, natural],
    ['photo.html', true, ['filtered']],
    ['text.html', true, ['flat']],
  ];
  for (const [file, fullPage, routes] of pages) {
    it(`${file}${fullPage ? ', full page' : ''}: no larger than the floor's page.screenshot() nor Chromium's fast PNG, same pixels`, async () => {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        await page.goto(`${base}/${file}`);
        const floor = await page.screenshot({ fullPage });
        const options = parseTakeOptions({ url: 'https://example.com/', ...(fullPage ? { full_page: '1' } : {}) }, { countries: [] });
        const raw = await captureRaw(
          await context.newCDPSession(page),
          options,
          { format: 'png' },
          { maxFullPageHeight: 20_000, maxPixels: 50_000_000 },
        );
        const result = await encodePngRoute(raw.image);
        expect(routes).toContain(result.route);
        if (raw.image.kind === 'encoded') expect(result.png.length).toBeLessThanOrEqual(raw.image.data.length);
        expect(result.png.length).toBeLessThanOrEqual(floor.length);
        expect((await rgba(result.png)).equals(await rgba(raw.image))).toBe(true);
        if (!fullPage) expect((await rgba(result.png)).equals(await rgba(floor))).toBe(true);
      } finally {
        await context.close();
      }
    });
  }
});
