import type { CDPSession } from 'playwright-core';
import type { TakeOptions } from '../../options/schema.js';

export type RawFormat = 'png' | 'jpeg' | 'webp';

/** What an encoder asks Chromium for. */
export interface RawRequest {
  format: RawFormat;
  quality?: number;
}

export interface RawCapture {
  data: Buffer;
  /** Height actually captured in CSS px. */
  cssHeight: number;
  truncated: boolean;
}

/**
 * Reads the pixels through CDP directly: Playwright's page.screenshot always uses Chromium's
 * slow, best-compression PNG path; optimizeForSpeed is several times faster and the encoders
 * recompress where that pays.
 */
export async function captureRaw(
  cdp: CDPSession,
  options: TakeOptions,
  request: RawRequest,
  maxFullPageHeight: number,
): Promise<RawCapture> {
  let cssHeight = options.viewport_height;
  let truncated = false;
  if (options.full_page) {
    const metrics = await cdp.send('Page.getLayoutMetrics');
    const contentHeight = Math.ceil(metrics.cssContentSize.height);
    cssHeight = Math.max(options.viewport_height, Math.min(contentHeight, maxFullPageHeight));
    truncated = contentHeight > maxFullPageHeight;
  }
  // Our CDP session does not inherit the device scale factor Playwright emulates on its own
  // session: without an explicit clip scale the image comes out in CSS pixels.
  const clip = { x: 0, y: 0, width: options.viewport_width, height: cssHeight, scale: options.device_scale_factor };
  const result = await cdp.send('Page.captureScreenshot', {
    format: request.format,
    ...(request.quality !== undefined ? { quality: request.quality } : {}),
    optimizeForSpeed: true,
    clip,
    ...(options.full_page ? { captureBeyondViewport: true } : {}),
  });
  return { data: Buffer.from(result.data, 'base64'), cssHeight, truncated };
}
