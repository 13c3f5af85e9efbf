/**
 * PNG encoders compared by bench/png-size.ts (issue 21, "PNG size"): Shutter's rule before and
 * after, and the alternatives measured on the way. Each takes what Chromium gave the encoder
 * (its fast PNG, or stitched pixels) and returns a PNG of the same pixels, or undefined when it
 * does not apply to that image.
 */
import type { PngOptions } from 'sharp';
import { encodePng, GRADIENT_WRITE } from '../../src/encoders/png.js';
import { analyseRows, writePng, type WriteOptions } from '../../src/encoders/png-writer.js';
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

/** The writer (png-writer.ts) on every image, with `options`, without the unfiltered route. */
const writer =
  (options: Partial<WriteOptions> = {}): Candidate =>
  async (image) => {
    const px =
      image.kind === 'pixels'
        ? image
        : await sharpOf(image)
            .raw()
            .toBuffer({ resolveWithObject: true })
            .then(({ data, info }) => ({ data, width: info.width, height: info.height, channels: info.channels }));
    return writePng(px, analyseRows(px), options);
  };

const levels = (level: number) => ({ 0: level, 1: level, 2: level, 3: level, 4: level });

/**
 * In table order. Candidates measured on the way and dropped from the run for its time (their
 * figures are in docs/performance.md): sharp 6 unfiltered, sharp 4/7/9 adaptive, Node's zlib on
 * Chromium's Up rows, an exact palette, the first writer (deflate-probed filters).
 */
export const CANDIDATES: ReadonlyArray<{ name: string; encode: Candidate }> = [
  { name: 'Chromium fast PNG as is', encode: async (image) => (image.kind === 'encoded' ? image.data : undefined) },
  { name: 'before: rule of PHOTO_BYTES_PER_PIXEL', encode: encodePngBefore },
  { name: 'sharp level 7, no filter', encode: viaSharp({ compressionLevel: 7, adaptiveFiltering: false }) },
  { name: 'sharp level 5, adaptive', encode: viaSharp({ compressionLevel: 5, adaptiveFiltering: true }) },
  { name: 'sharp level 6, adaptive', encode: viaSharp({ compressionLevel: 6, adaptiveFiltering: true }) },
  { name: 'writer, gradient setting (Sub, level 4)', encode: writer(GRADIENT_WRITE) },
  { name: 'writer, Sub, level 5', encode: writer({ ...GRADIENT_WRITE, levels: levels(5) }) },
  { name: 'writer, filtered setting (sampled heuristic)', encode: writer() },
  { name: 'writer, filtered, level 4', encode: writer({ levels: levels(4) }) },
  { name: 'writer, filtered, level 6', encode: writer({ levels: levels(6) }) },
  { name: 'writer, filtered, one 2 MB segment a time', encode: writer({ segmentBytes: 2 * 1024 * 1024 }) },
  { name: 'after: new rule (encodePng)', encode: encodePng },
];
