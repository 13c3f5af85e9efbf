import { crc32, deflateSync, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { encodePngRoute, pngEncoder, type PngRoute } from '../../src/encoders/png.js';
import { Filter, NATURAL_REPEAT, PHOTO_REPEAT, analyseRows, writePng, type Pixels } from '../../src/encoders/png-writer.js';
import type { RawImage } from '../../src/encoders/raw-image.js';

/** An async job's settings: the encoder recompresses (issue 21); an answer waited on gets Chromium's PNG as is (issue 35). */
const options = { quality: 80, smallest: true };

// Synthetic stand-ins for what Chromium renders on the bench's pages (bench/fixtures/; the e2e
// test png-size.test.ts checks the pages themselves in Chromium).

/** An LCG, so every image is the same on every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** RGB pixels from a function of (x, y, channel). */
function make(width: number, height: number, at: (x: number, y: number, c: number) => number): Pixels {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(at(x, y, c))));
  return { data, width, height, channels: 3 };
}

/** Skia's 8×8 ordered dither, as Chromium draws CSS gradients. */
const BAYER = [
  0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26, 12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22, 3, 35, 11, 43,
  1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25, 15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21,
];
const dither = (x: number, y: number) => BAYER[(y % 8) * 8 + (x % 8)]! / 64 - 0.5;

/** A diagonal multi-colour gradient under a radial glow, dithered: the bench's gradient page. */
function gradient(width = 640, height = 400): Pixels {
  const from = [79, 70, 229];
  const to = [245, 158, 11];
  return make(width, height, (x, y, c) => {
    const t = (x + y) / (width + height);
    const glow = Math.max(0, 1 - Math.hypot(x - width * 0.78, y - height * 0.22) / (width * 0.42)) * 70;
    return from[c]! + (to[c]! - from[c]!) * t + glow + dither(x, y);
  });
}

/** Two-colour gradient, waves and grain: the bench fixture server's photos. */
function grainyPhoto(width = 640, height = 400, seed = 1): Pixels {
  const next = random(seed);
  return make(width, height, (x, y, c) => {
    const wave = 40 * Math.sin(x / 19) * Math.cos(y / 23) * (c === 1 ? -1 : 1);
    return [180, 120, 90][c]! * (0.55 + (0.45 * (x + y)) / (width + height)) + wave + Math.floor(next() * 25) - 12;
  });
}

/** A smooth picture (blurred shapes), as an upscaled camera photo is. */
async function smoothPhoto(width = 640, height = 400): Promise<Pixels> {
  const next = random(7);
  const shapes = Array.from(
    { length: 40 },
    () =>
      `<circle cx="${next() * width}" cy="${next() * height}" r="${15 + next() * 90}" fill="hsl(${90 + next() * 90} ${30 + next() * 40}% ${25 + next() * 40}%)" opacity=".8"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#b9cfe0"/>${shapes}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).blur(6).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Lines of text on a light page with a card border: UI and text. */
async function textPage(width = 640, height = 400): Promise<Pixels> {
  const lines = Array.from(
    { length: Math.floor(height / 22) - 1 },
    (_, i) =>
      `<text x="14" y="${26 + i * 22}" font-family="sans-serif" font-size="15" fill="#223">Line ${i} of an article: harbour, station, council, museum ${i * 7}.</text>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fafbfc"/><rect x="6" y="6" width="${width - 12}" height="${height - 12}" fill="none" stroke="#c8ccd1"/>${lines}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** A text page with a photo beside the text (220×260: a third of the width; 120×150: a figure). */
async function textWithPhoto(width = 220, height = 260): Promise<Pixels> {
  const text = await textPage(640, 400);
  const photo = grainyPhoto(width, height, 3);
  const data = Buffer.from(text.data);
  for (let y = 0; y < height; y++) photo.data.copy(data, ((y + 70) * 640 + 620 - width) * 3, y * width * 3, (y + 1) * width * 3);
  return { ...text, data };
}

/** A PNG the way Chromium's optimizeForSpeed path writes it: Up filter on every row, zlib level 1. */
function chromiumFastPng(px: Pixels): Buffer {
  const stride = px.width * px.channels;
  const rows = Buffer.alloc((stride + 1) * px.height);
  for (let y = 0; y < px.height; y++) {
    rows[y * (stride + 1)] = Filter.Up;
    for (let i = 0; i < stride; i++)
      rows[y * (stride + 1) + 1 + i] = (px.data[y * stride + i]! - (y ? px.data[(y - 1) * stride + i]! : 0)) & 255;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(px.width, 0);
  ihdr.writeUInt32BE(px.height, 4);
  ihdr[8] = 8;
  ihdr[9] = px.channels === 4 ? 6 : 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * What Chromium's best-compression PNG does (the floor's page.screenshot()): libpng's adaptive
 * filter heuristic and zlib level 6, here through sharp (zlib-ng), within ~0.5 % of Chromium's bytes.
 */
const referencePng = (px: Pixels) =>
  sharp(px.data, { raw: { width: px.width, height: px.height, channels: px.channels as 3 | 4 } })
    .png({ compressionLevel: 6, adaptiveFiltering: true })
    .toBuffer();

/**
 * A PNG read without libpng: chunks, zlib, and each row unfiltered as the PNG spec says. Returns
 * the pixels and each row's filter type.
 */
function readPng(png: Buffer): Pixels & { filters: number[] } {
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  let channels = 0;
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    if (type === 'IHDR') {
      width = png.readUInt32BE(at + 8);
      height = png.readUInt32BE(at + 12);
      expect(png[at + 16]).toBe(8);
      channels = { 0: 1, 4: 2, 2: 3, 6: 4 }[png[at + 17]!]!;
    }
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  expect(rows.length).toBe((stride + 1) * height);
  const data = Buffer.alloc(stride * height);
  const filters: number[] = [];
  for (let y = 0; y < height; y++) {
    const filter = rows[y * (stride + 1)]!;
    filters.push(filter);
    for (let i = 0; i < stride; i++) {
      const x = rows[y * (stride + 1) + 1 + i]!;
      const a = i >= channels ? data[y * stride + i - channels]! : 0;
      const b = y ? data[(y - 1) * stride + i]! : 0;
      const c = y && i >= channels ? data[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      data[y * stride + i] = (x + [0, a, b, (a + b) >> 1, paeth][filter]!) & 255;
    }
  }
  return { data, width, height, channels, filters };
}

/** RGBA pixels of any PNG, for an exact comparison. */
const decoded = (png: Buffer) => sharp(png).ensureAlpha().raw().toBuffer();

const encoded = (data: Buffer): RawImage => ({ kind: 'encoded', data, format: 'png' });

describe('png encoder', () => {
  const natural: PngRoute[] = ['filtered', 'adaptive'];
  const cases: Array<[string, () => Pixels | Promise<Pixels>, PngRoute[]]> = [
    ['text and UI', () => textPage(), ['flat']],
    ['a dithered gradient', () => gradient(), ['gradient', 'adaptive']],
    ['grainy photos', () => grainyPhoto(), ['filtered']],
    ['a smooth picture', () => smoothPhoto(), ['gradient', 'adaptive']],
    ['a small photo beside text (both run, the smaller wins)', () => textWithPhoto(120, 150), natural],
  ];

  for (const [name, build, routes] of cases) {
    it(`${name}: the same pixels, smaller than Chromium's fast PNG and than libpng's adaptive filters at level 6 (${routes.join(' or ')})`, async () => {
      const px = await build();
      const input = chromiumFastPng(px);
      const result = await encodePngRoute(encoded(input));
      expect(routes).toContain(result.route);
      expect(result.png.length).toBeLessThan(input.length);
      expect(result.png.length).toBeLessThanOrEqual((await referencePng(px)).length);
      expect((await decoded(result.png)).equals(await decoded(input))).toBe(true);
      // The image format goes through the same function.
      expect((await pngEncoder.encode(encoded(input), options)).equals(result.png)).toBe(true);
    });
  }

  it('a large photo beside text goes to the filtered writer alone: within 3 % of libpng’s adaptive filters (a known gap)', async () => {
    const px = await textWithPhoto();
    const input = chromiumFastPng(px);
    const result = await encodePngRoute(encoded(input));
    expect(result.route).toBe('filtered');
    expect(result.png.length).toBeLessThan(input.length);
    expect(result.png.length).toBeLessThanOrEqual((await referencePng(px)).length * 1.03);
    expect((await decoded(result.png)).equals(await decoded(input))).toBe(true);
  });

  it('never returns more bytes than Chromium sent: noise comes back as it came', async () => {
    const next = random(11);
    const px = make(300, 200, () => next() * 256);
    const input = chromiumFastPng(px);
    const result = await encodePngRoute(encoded(input));
    expect(result.png.length).toBeLessThanOrEqual(input.length);
    if (result.route === 'input') expect(result.png).toBe(input);
    expect((await decoded(result.png)).equals(await decoded(input))).toBe(true);
  });

  it('sends a PNG it does not write (16-bit) as it came', async () => {
    const input = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#123456' } })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect(input[24]).toBe(16);
    expect(await encodePngRoute(encoded(input))).toEqual({ png: input, route: 'input' });
  });

  it('encodes stitched pixel sections, RGB and RGBA, without an input to compare with', async () => {
    for (const channels of [3, 4] as const) {
      const px = grainyPhoto(200, 120);
      const data =
        channels === 3
          ? px.data
          : await sharp(px.data, { raw: { width: 200, height: 120, channels: 3 } })
              .ensureAlpha(0.5)
              .raw()
              .toBuffer();
      const png = await pngEncoder.encode({ kind: 'pixels', data, width: 200, height: 120, channels }, options);
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', 200, 120, channels]);
      expect((await sharp(png).raw().toBuffer()).equals(data)).toBe(true);
    }
  });

  it('on the response path asks Chromium for its best compression and answers it as it is; an async job asks for the fast PNG and recompresses', async () => {
    const px = grainyPhoto(200, 120);
    const input = chromiumFastPng(px);
    const answer = { quality: 80, smallest: false };
    expect(pngEncoder.raw(answer)).toEqual({ format: 'png', optimizeForSpeed: false });
    expect(await pngEncoder.encode(encoded(input), answer)).toBe(input);
    expect(pngEncoder.raw(options)).toEqual({ format: 'png' });
    const recompressed = await pngEncoder.encode(encoded(input), options);
    expect(recompressed.length).toBeLessThan(input.length);
    // Stitched sections have no PNG to pass on: they are encoded either way.
    const stitched = await pngEncoder.encode({ kind: 'pixels', data: px.data, width: 200, height: 120, channels: 3 }, answer);
    expect((await sharp(stitched).raw().toBuffer()).equals(px.data)).toBe(true);
  });

  it('on the response path, stitched text and UI are written unfiltered, stitched photos with filters', async () => {
    const answer = { quality: 80, smallest: false };
    const text = await textPage();
    const flat = readPng(await pngEncoder.encode({ kind: 'pixels', ...text, channels: 3 }, answer));
    expect(flat.data.equals(text.data)).toBe(true);
    expect(flat.filters.every((f) => f === Filter.None)).toBe(true);
    const photo = grainyPhoto(200, 120);
    const filtered = readPng(await pngEncoder.encode({ kind: 'pixels', ...photo, channels: 3 }, answer));
    expect(filtered.data.equals(photo.data)).toBe(true);
    expect(filtered.filters.filter((f) => f !== Filter.None).length).toBeGreaterThan(60);
  });

  it('handles images too small to analyse', async () => {
    for (const [width, height] of [
      [1, 1],
      [3, 5],
      [7, 40],
      [40, 2],
    ] as const) {
      const px = grainyPhoto(width, height);
      const input = chromiumFastPng(px);
      const { png } = await encodePngRoute(encoded(input));
      expect((await decoded(png)).equals(await decoded(input))).toBe(true);
    }
  });
});

describe('row analysis: what the rule decides on', () => {
  it('text and UI repeat: no photo, no natural content', async () => {
    const analysis = analyseRows(await textPage());
    expect(analysis.photoShare).toBe(0);
    expect(analysis.naturalShare).toBe(0);
  });

  it('flat colour repeats everywhere', () => {
    const analysis = analyseRows(make(256, 64, (_x, _y, c) => [240, 244, 248][c]!));
    expect(Math.min(...analysis.repeat)).toBe(1);
    expect(analysis.naturalShare).toBe(0);
  });

  it('a dithered gradient is natural content but not a photo', () => {
    const analysis = analyseRows(gradient());
    expect(analysis.naturalShare).toBeGreaterThan(0.2);
    expect(analysis.photoShare).toBeLessThan(analysis.naturalShare);
  });

  it('a gradient along one axis repeats Chromium’s dither every 8 rows: no natural content after its first rows', () => {
    const analysis = analyseRows(make(512, 200, (x, y, c) => [30, 60, 140][c]! + (x / 512) * 100 + dither(x, y)));
    expect(analysis.naturalShare).toBe(0);
    expect(Math.min(...analysis.repeat.subarray(8))).toBeGreaterThanOrEqual(NATURAL_REPEAT);
  });

  it('grainy photos are photos', () => {
    const analysis = analyseRows(grainyPhoto());
    expect(analysis.photoShare).toBeGreaterThan(0.9);
    expect(Math.max(...analysis.repeat.subarray(1))).toBeLessThan(PHOTO_REPEAT);
  });

  it('a photo a third of the width beside text is found (by tiles, not whole rows)', async () => {
    const analysis = analyseRows(await textWithPhoto());
    expect(analysis.photoShare).toBeGreaterThan(0.05);
  });
});

describe('png writer', () => {
  const photo = grainyPhoto(96, 48);

  it('writes every filter type, alone, pixel for pixel (grey, grey+alpha, RGB, RGBA), as libpng and a reader of its own read it', async () => {
    for (const channels of [1, 2, 3, 4]) {
      const data = Buffer.alloc(96 * 48 * channels);
      for (let i = 0; i < data.length; i++) data[i] = photo.data[i % photo.data.length]!;
      const px = { data, width: 96, height: 48, channels };
      for (const filter of [Filter.None, Filter.Sub, Filter.Up, Filter.Average, Filter.Paeth]) {
        const png = await writePng(px, analyseRows(px), { filters: [filter], filterBelow: 2 });
        const back = readPng(png);
        expect([back.width, back.height, back.channels]).toEqual([96, 48, channels]);
        expect(back.data.equals(data)).toBe(true);
        // The first row has no row above: Up is written as None there.
        expect(new Set(back.filters.slice(1))).toEqual(new Set([filter]));
        const meta = await sharp(png).metadata();
        expect([meta.width, meta.height, meta.channels]).toEqual([96, 48, channels]);
        if (channels >= 3) expect((await sharp(png).raw().toBuffer()).equals(data)).toBe(true);
      }
    }
  });

  it('leaves bands that repeat earlier rows unfiltered and filters the photo bands', async () => {
    const px = await textWithPhoto();
    const analysis = analyseRows(px);
    const { filters } = readPng(await writePng(px, analysis, { band: 16 }));
    for (let band = 0; band < 25; band++) {
      const rows = [...analysis.repeat.subarray(band * 16, band * 16 + 16)];
      if (Math.min(...rows) >= NATURAL_REPEAT) expect(filters.slice(band * 16, band * 16 + 16).every((f) => f === Filter.None)).toBe(true);
    }
    // The photo's rows (70–330) are filtered.
    expect(filters.slice(80, 320).filter((f) => f !== Filter.None).length).toBeGreaterThan(200);
  });

  it('joins deflate segments compressed apart, with different strategies and levels, into one valid stream', async () => {
    const px = await textWithPhoto();
    const one = await writePng(px, analyseRows(px), { segmentBytes: Infinity });
    const many = await writePng(px, analyseRows(px), { segmentBytes: 20_000, minSegmentRows: 1 });
    for (const png of [one, many]) {
      expect(readPng(png).data.equals(px.data)).toBe(true);
      expect((await sharp(png).raw().toBuffer()).equals(px.data)).toBe(true);
    }
    // Segments restart deflate's window: a little larger, not much.
    expect(many.length).toBeLessThan(one.length * 1.1);
  });
});
