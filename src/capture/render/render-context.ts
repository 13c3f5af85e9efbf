import type { CDPSession, Page } from 'playwright-core';
import type { TakeOptions } from '../../options/schema.js';
import type { CaptureClock } from '../capture-clock.js';
import type { CaptureWarning } from '../engine.js';
import type { ImageLimits } from '../image-limits.js';
import type { Timings } from '../timings.js';

/** What a renderer gets: the loaded page, the capture's options, limits and clock. */
export interface RenderContext {
  page: Page;
  /** The capture's own CDP session (screenshots are taken over it). */
  cdp: CDPSession;
  options: TakeOptions;
  limits: ImageLimits;
  timings: Timings;
  clock: CaptureClock;
}

/** The file a renderer made. */
export interface RenderedOutput {
  body: Buffer;
  /** A full-page capture was cut at a height limit. */
  truncated: boolean;
  /** `selector` matched nothing and error_on_selector_not_found=0: the whole page was captured. */
  selectorMissing?: boolean;
  /** X-Shutter-Warning values the renderer found (print_fallback, main_content_not_found). */
  warnings?: readonly CaptureWarning[];
}

/** How the loaded page becomes one format's file: the last step of a capture. */
export type Renderer = (ctx: RenderContext) => Promise<RenderedOutput>;
