/**
 * PNG encoders compared by bench/png-size.ts (issue 21, "PNG size"): Shutter's rule before and
 * after, and the alternatives measured on the way. Each takes what Chromium gave the encoder
 * (its fast PNG, or stitched pixels) and returns a PNG of the same pixels, or undefined when it
 * does not apply to that image.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import type { PngOptions } from 'sharp';
import { encodePng } from '../../src/encoders/png.js';
import { analyseRows, writePng } from '../../src/encoders/png-writer.js';
import { sharpOf, type RawImage } from '../../src/encoders/raw-image.js';

export type Candidate = (image: RawImage) => Promise<Buffer | undefined>;

/**
 * The rule before issue 21, as it was in src/encoders/png.ts: a fast PNG of 0.8 bytes a pixel or
 * more is sent as Chromium made it; anything else is recompressed unfiltered at zlib level 6,
 * unless that came out larger.
 */
export async function encodePngBefore(image: RawImage): Promise<Buffer> {
  const recompress = () => sharpOf(image).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
  if (image.kind !== 'encoded') return recompress();
  if (image.data.length >= image.data.readUInt32BE(16) * image.data.readUInt32BE(20) * 0.8) return image.data;
  const smaller = await recompress();
  return smaller.length < image.data.length ? smaller : image.data;
}

const viaSharp =
  (options: PngOptions): Candidate =>
  (image) =>
    sharpOf(image).png(options).toBuffer();

/** Chromium's own Up-filtered rows (its fast PNG) compressed again by Node's zlib at `level`. */
const recompressChromiumRows =
  (level: number): Candidate =>
  async (image) => {
    if (image.kind !== 'encoded') return undefined;
    const { head, idat } = splitPng(image.data);
    const z = deflateSync(inflateSync(idat), { level });
    return Buffer.concat([head, chunk('IDAT', z), chunk('IEND', Buffer.alloc(0))]);
  };

/** Palette PNG, only when the image has at most 256 colours (exact, so lossless); else n/a. */
const exactPalette: Candidate = async (image) => {
  const { data, info } = await sharpOf(image).raw().toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length && colours.size <= 256; i += info.channels) {
    colours.add(info.channels === 4 ? data.readUInt32BE(i) : (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  }
  if (colours.size > 256) return undefined;
  return sharpOf(image).png({ palette: true, colours: 256, dither: 0, quality: 100, effort: 10, compressionLevel: 9 }).toBuffer();
};

/** The filtered writer (png-writer.ts) on every image, without the unfiltered route. */
const writerOnly: Candidate = async (image) => {
  const px =
    image.kind === 'pixels'
      ? image
      : await sharpOf(image)
          .raw()
          .toBuffer({ resolveWithObject: true })
          .then(({ data, info }) => ({ data, width: info.width, height: info.height, channels: info.channels }));
  return writePng(px, analyseRows(px));
};

/** In table order. */
export const CANDIDATES: ReadonlyArray<{ name: string; encode: Candidate }> = [
  { name: 'Chromium fast PNG as is', encode: async (image) => (image.kind === 'encoded' ? image.data : undefined) },
  { name: 'before: rule of PHOTO_BYTES_PER_PIXEL', encode: encodePngBefore },
  { name: 'sharp level 6, no filter', encode: viaSharp({ compressionLevel: 6, adaptiveFiltering: false }) },
  { name: 'sharp level 7, no filter', encode: viaSharp({ compressionLevel: 7, adaptiveFiltering: false }) },
  { name: 'sharp level 4, adaptive', encode: viaSharp({ compressionLevel: 4, adaptiveFiltering: true }) },
  { name: 'sharp level 6, adaptive', encode: viaSharp({ compressionLevel: 6, adaptiveFiltering: true }) },
  { name: 'sharp level 7, adaptive', encode: viaSharp({ compressionLevel: 7, adaptiveFiltering: true }) },
  { name: 'sharp level 9, adaptive', encode: viaSharp({ compressionLevel: 9, adaptiveFiltering: true }) },
  { name: "Node zlib 6 on Chromium's Up rows", encode: recompressChromiumRows(6) },
  { name: 'palette, exact only', encode: exactPalette },
  { name: 'filtered writer on every image', encode: writerOnly },
  { name: 'after: new rule (encodePng)', encode: encodePng },
];

/** The IHDR part of a PNG (signature and chunks before the first IDAT) and its IDAT data. */
function splitPng(png: Buffer): { head: Buffer; idat: Buffer } {
  let at = 8;
  let headEnd = 0;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') {
      headEnd ||= at;
      idat.push(png.subarray(at + 8, at + 8 + length));
    }
    at += 12 + length;
  }
  return { head: png.subarray(0, headEnd), idat: Buffer.concat(idat) };
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
