import type { CDPSession, Page } from 'playwright-core';
import type { CaptureClock } from '../capture/capture-clock.js';
import type { ImageLimits } from '../capture/steps/screenshot.js';
import type { Timings } from '../capture/timings.js';
import type { TakeOptions } from '../options/schema.js';

/** What a format's last steps get: the loaded page, the capture's options, limits and clock. */
export interface RenderContext {
  page: Page;
  /** The capture's own CDP session (screenshots are taken over it). */
  cdp: CDPSession;
  options: TakeOptions;
  limits: ImageLimits;
  timings: Timings;
  clock: CaptureClock;
}

/** The file a format made. */
export interface RenderedOutput {
  body: Buffer;
  /** A full-page capture was cut at a height limit. */
  truncated: boolean;
  /** `selector` matched nothing and error_on_selector_not_found=0: the whole page was captured. */
  selectorMissing?: boolean;
}

/**
 * One output format, everything about it in one record: how callers name it, what it is, which
 * rules apply to it, and how the loaded page becomes the file. The registry (registry.ts) lists
 * them; the options schema, the engine, storage, the playground, the docs and OpenAPI read it.
 */
export interface OutputFormat<Name extends string = string> {
  name: Name;
  /** Other names accepted for `format` (jpeg → jpg). */
  aliases: readonly string[];
  contentType: string;
  /** File extension, without the dot. */
  extension: string;
  /** image: pixels (the pixel budget applies); document: a printed document; text: the page's content. */
  kind: 'image' | 'document' | 'text';
  /** `quality` applies. */
  lossy: boolean;
  /** The capture's time is capped at 12 s (the spec's cap for documents and text). */
  shortTimeCap: boolean;
  render(ctx: RenderContext): Promise<RenderedOutput>;
}
