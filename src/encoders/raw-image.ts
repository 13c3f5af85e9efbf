import sharp, { type Sharp } from 'sharp';

/** What Chromium can encode a screenshot as. */
export type RawFormat = 'png' | 'jpeg' | 'webp';

/** What an image format asks Chromium for. */
export interface RawRequest {
  format: RawFormat;
  quality?: number;
  /** Largest image height in device pixels the output format can hold (WebP: 16 383). */
  maxDeviceHeight?: number;
  /**
   * PNG: Chromium's fastest zlib level (default) for pixels that are decoded or recompressed anyway;
   * false for its best compression (what Playwright's page.screenshot() gets), answered as it is.
   */
  optimizeForSpeed?: boolean;
}

/** Chromium's pixels: one encoded image, or decoded RGB rows stitched from sections. */
export type RawImage =
  { kind: 'encoded'; data: Buffer; format: RawFormat } | { kind: 'pixels'; data: Buffer; width: number; height: number; channels: 3 | 4 };

// Every capture is a different image: sharp's operation cache (50 MB by default) would only hold memory.
sharp.cache(false);

/** A sharp pipeline over either kind of raw image. */
export function sharpOf(image: RawImage): Sharp {
  return image.kind === 'encoded'
    ? sharp(image.data)
    : sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}
