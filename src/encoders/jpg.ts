import { sharpOf } from './raw-image.js';
import type { ImageEncoder } from './encoder.js';

/** Chromium encodes JPEG itself at the requested quality; stitched tall captures are encoded by sharp. */
export const jpgEncoder: ImageEncoder = {
  raw: (options) => ({ format: 'jpeg', quality: options.quality, maxDeviceHeight: 65_535 }),
  encode: async (image, options) =>
    image.kind === 'encoded' && image.format === 'jpeg' ? image.data : sharpOf(image).jpeg({ quality: options.quality }).toBuffer(),
};
