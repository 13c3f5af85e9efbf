import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { PHOTO_BYTES_PER_PIXEL, pngEncoder } from '../../src/encoders/png.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const options = parseTakeOptions({ url: 'https://example.com/' }, { countries: [] });
const width = 400;
const height = 300;

/** A PNG compressed the way Chromium's optimizeForSpeed path does: fastest zlib, no filtering. */
async function fastPng(input: Sharp): Promise<Buffer> {
  return input.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

async function pixels(png: Buffer): Promise<Buffer> {
  return sharp(png).ensureAlpha().raw().toBuffer();
}

describe('png encoder', () => {
  it('recompresses text-like captures into a smaller file with the same pixels', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#f4f6f8"/>${Array.from(
      { length: 12 },
      (_, i) => `<text x="10" y="${20 + i * 22}" font-size="16" fill="#223">Line ${i} of some card text, shadows and borders</text>`,
    ).join('')}</svg>`;
    const fast = await fastPng(sharp(Buffer.from(svg)));
    expect(fast.length).toBeLessThan(width * height * PHOTO_BYTES_PER_PIXEL);
    const out = await pngEncoder.encode({ kind: 'encoded', data: fast, format: 'png' }, options);
    expect(out.length).toBeLessThan(fast.length);
    expect((await pixels(out)).equals(await pixels(fast))).toBe(true);
  });

  it('sends photo-like captures as Chromium encoded them: recompressing without filters would grow them', async () => {
    const noise = sharp({
      create: { width, height, channels: 4, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    });
    const fast = await fastPng(noise);
    expect(fast.length).toBeGreaterThanOrEqual(width * height * PHOTO_BYTES_PER_PIXEL);
    const out = await pngEncoder.encode({ kind: 'encoded', data: fast, format: 'png' }, options);
    expect(out).toBe(fast);
  });

  it('encodes stitched pixel sections', async () => {
    const data = Buffer.alloc(width * height * 3, 200);
    const out = await pngEncoder.encode({ kind: 'pixels', data, width, height, channels: 3 }, options);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', width, height]);
  });
});
