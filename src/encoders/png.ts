import { sharpOf, type RawImage } from './raw-image.js';
import type { ImageEncoder } from './encoder.js';

/**
 * Above this size per pixel, Chromium's fast PNG holds photo-like content, which zlib without
 * filters compresses worse than Chromium already did (bench heavy page: 0.94 B/px fast, 1.5× that
 * recompressed); text and flat colour stay well below (bench simple page: 0.54 B/px, 3× smaller
 * recompressed).
 */
export const PHOTO_BYTES_PER_PIXEL = 0.8;

/**
 * Chromium's fast PNG (barely compressed) recompressed by sharp at zlib level 6 on libuv's thread
 * pool, without adaptive filtering (3× slower for a larger file on screenshots): about 3× faster
 * than Chromium's own best-compression PNG and a smaller file (docs/performance.md). Photo-like
 * captures are sent as Chromium made them, and a recompression that came out larger is dropped.
 */
export const pngEncoder: ImageEncoder = {
  raw: () => ({ format: 'png' }),
  encode: (image) => encodePng(image),
};

/** The png encoder's work, which needs no options (the bench's bare-CDP bound uses it as is). */
export async function encodePng(image: RawImage): Promise<Buffer> {
  const recompress = () => sharpOf(image).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
  if (image.kind !== 'encoded') return recompress();
  if (image.data.length >= pixelsOf(image) * PHOTO_BYTES_PER_PIXEL) return image.data;
  const smaller = await recompress();
  return smaller.length < image.data.length ? smaller : image.data;
}

/** Width × height from the PNG's IHDR chunk (it always comes first, right after the signature). */
function pixelsOf(image: Extract<RawImage, { kind: 'encoded' }>): number {
  return image.data.readUInt32BE(16) * image.data.readUInt32BE(20);
}
