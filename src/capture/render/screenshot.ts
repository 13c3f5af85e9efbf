import type { CDPSession } from 'playwright-core';
import type { OutputInfo } from 'sharp';
import { sharpOf, type RawImage, type RawRequest } from '../../encoders/raw-image.js';
import type { TakeOptions } from '../../options/schema.js';
import type { ImageLimits } from '../image-limits.js';
import type { Region } from '../steps/element.js';

export interface RawCapture {
  image: RawImage;
  /** Height actually captured, in CSS px. */
  cssHeight: number;
  truncated: boolean;
}

/**
 * Above this height (device px) a capture is taken in sections and stitched: one bitmap of a
 * very tall page is GPU-texture-limited in some Chromium builds (content repeats) and costs
 * hundreds of MB in the browser at once. One bitmap up to 32 768 px was tried (issue 35): a
 * 20 000 px text page in 0.9 s instead of 1.5 s, but ~120 MiB more per capture in flight, and a
 * 20 000 px page of noise spent 15 s in Chromium's PNG encoder (its fast PNG: 2 s) and lost its
 * browser under load (docs/performance.md, "Tall full pages").
 */
export const ONE_SHOT_MAX_DEVICE_HEIGHT = 16_384;
const SECTION_DEVICE_HEIGHT = 8_192;

/** Height in CSS px a capture may have, within the cap, the pixel budget and the format's limit. */
export function allowedCssHeight(
  options: TakeOptions,
  limits: ImageLimits,
  request: RawRequest,
  cssWidth = options.viewport_width,
): number {
  const dsf = options.device_scale_factor;
  const byBudget = Math.floor(limits.maxPixels / (cssWidth * dsf * dsf));
  const byFormat = request.maxDeviceHeight ? Math.floor(request.maxDeviceHeight / dsf) : Infinity;
  return Math.min(limits.maxFullPageHeight, byBudget, byFormat);
}

/**
 * Reads the pixels through CDP directly, at the compression the encoder asks for: Chromium's fast
 * PNG for pixels that are decoded or recompressed anyway (webp, avif, gif, async png), its best
 * compression for a png answered as it is.
 */
export async function captureRaw(
  cdp: CDPSession,
  options: TakeOptions,
  request: RawRequest,
  limits: ImageLimits,
  region?: Region,
): Promise<RawCapture> {
  const dsf = options.device_scale_factor;
  // The part of the document to capture: an element's box or clip_*, the whole page, or the viewport.
  let area: Region = { x: 0, y: 0, width: options.viewport_width, height: options.viewport_height };
  let beyondViewport = false;
  let truncated = false;
  if (region) {
    const allowed = allowedCssHeight(options, limits, request, region.width);
    area = { ...region, height: Math.min(region.height, allowed) };
    truncated = region.height > allowed;
    beyondViewport = true;
  } else if (options.full_page) {
    const metrics = await cdp.send('Page.getLayoutMetrics');
    const contentHeight = Math.ceil(metrics.cssContentSize.height);
    const allowed = allowedCssHeight(options, limits, request);
    area.height = Math.max(options.viewport_height, Math.min(contentHeight, allowed));
    truncated = contentHeight > allowed;
    beyondViewport = true;
  } else if (options.scroll_into_view !== undefined) {
    // The viewport where scroll_into_view left it (the clip is in document coordinates).
    const { cssVisualViewport } = await cdp.send('Page.getLayoutMetrics');
    area = { ...area, x: Math.round(cssVisualViewport.pageX), y: Math.round(cssVisualViewport.pageY) };
  }
  const shot = (req: RawRequest, y: number, height: number) => shoot(cdp, options, req, { ...area, y, height }, beyondViewport);
  if (area.height * dsf <= ONE_SHOT_MAX_DEVICE_HEIGHT) {
    const data = await shot(request, area.y, area.height);
    return { image: { kind: 'encoded', data, format: request.format }, cssHeight: area.height, truncated };
  }
  return { image: await captureSections(options, area, shot), cssHeight: area.height, truncated };
}

/** Section by section, lossless, then the rows concatenated (widths are equal, so no compositing). */
async function captureSections(
  options: TakeOptions,
  area: Region,
  shot: (request: RawRequest, y: number, height: number) => Promise<Buffer>,
): Promise<RawImage> {
  const sectionCss = Math.floor(SECTION_DEVICE_HEIGHT / options.device_scale_factor);
  // Transparent pixels (omit_background) keep their alpha; otherwise RGB is enough.
  const channels = options.omit_background ? 4 : 3;
  const decoded: Array<Promise<{ data: Buffer; info: OutputInfo }>> = [];
  for (let y = 0; y < area.height; y += sectionCss) {
    const png = await shot({ format: 'png' }, area.y + y, Math.min(sectionCss, area.height - y));
    // Decoding runs on libuv's pool while Chromium renders the next section.
    const pipeline = sharpOf({ kind: 'encoded', data: png, format: 'png' });
    decoded.push((channels === 4 ? pipeline.ensureAlpha() : pipeline.removeAlpha()).raw().toBuffer({ resolveWithObject: true }));
  }
  const parts = await Promise.all(decoded);
  const width = parts[0]!.info.width;
  const height = parts.reduce((sum, p) => sum + p.info.height, 0);
  return { kind: 'pixels', data: Buffer.concat(parts.map((p) => p.data)), width, height, channels };
}

async function shoot(cdp: CDPSession, options: TakeOptions, request: RawRequest, area: Region, beyondViewport: boolean): Promise<Buffer> {
  // Our CDP session does not inherit the device scale factor Playwright emulates on its own
  // session: without an explicit clip scale the image comes out in CSS pixels.
  const clip = { ...area, scale: options.device_scale_factor };
  const params = {
    format: request.format,
    ...(request.quality !== undefined ? { quality: request.quality } : {}),
    optimizeForSpeed: request.optimizeForSpeed ?? true,
    clip,
    // Beyond the viewport, Chromium lays the page out at full height: fixed headers appear once, at the top.
    ...(beyondViewport ? { captureBeyondViewport: true } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await cdp.send('Page.captureScreenshot', params);
      return Buffer.from(result.data, 'base64');
    } catch (error) {
      // Chromium answers this when the page has not presented a frame yet (seen right after load,
      // about once in a few hundred captures under load): wait for a frame and ask again.
      if (attempt >= SCREENSHOT_ATTEMPTS || !NO_FRAME_YET.test(error instanceof Error ? error.message : String(error))) throw error;
      await nextFrame(cdp);
    }
  }
}

const SCREENSHOT_ATTEMPTS = 3;
const NO_FRAME_YET = /Unable to capture screenshot/;

/** One animation frame, or 100 ms when the page produces none (rAF may not fire). */
async function nextFrame(cdp: CDPSession): Promise<void> {
  await cdp.send('Runtime.evaluate', {
    expression: 'new Promise((resolve) => { requestAnimationFrame(() => resolve(undefined)); setTimeout(resolve, 100); })',
    awaitPromise: true,
  });
}
