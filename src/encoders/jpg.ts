import { sharpOf } from './raw-image.js';
import type { ImageEncoder } from './encoder.js';

/** Chromium encodes JPEG itself at the requested quality; stitched tall captures are encoded by sharp. */
export const jpgEncoder: ImageEncoder = {
  raw: (settings) => ({ format: 'jpeg', quality: settings.quality, maxDeviceHeight: 65_535 }),
  encode: async (image, settings) =>
    image.kind === 'encoded' && image.format === 'jpeg' ? image.data : sharpOf(image).jpeg({ quality: settings.quality }).toBuffer(),
};
