import type { RawImage, RawRequest } from './raw-image.js';

/** What an encoder is told: its own settings, never the whole request. */
export interface EncoderSettings {
  /** 0–100, for lossy formats. */
  quality: number;
  /**
   * Spend time for fewer bytes (png: recompressed below Chromium's best, docs/performance.md):
   * only where nobody waits on the answer (async jobs). Otherwise time comes first.
   */
  smallest: boolean;
}

/** Turns Chromium's raw pixels into an image format. */
export interface ImageEncoder {
  /** What to ask Chromium for. */
  raw(settings: EncoderSettings): RawRequest;
  encode(image: RawImage, settings: EncoderSettings): Promise<Buffer>;
}
