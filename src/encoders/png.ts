import { sharpOf } from '../capture/steps/screenshot.js';
import type { ImageEncoder } from './encoder.js';

/**
 * Chromium's fast PNG (barely compressed) recompressed by sharp at zlib level 6 on libuv's
 * thread pool, without adaptive filtering (3× slower for a larger file on screenshots): about 3× faster than
 * Chromium's own best-compression PNG and a smaller file (docs/performance.md).
 */
export const pngEncoder: ImageEncoder = {
  raw: () => ({ format: 'png' }),
  encode: (image) => sharpOf(image).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer(),
};
