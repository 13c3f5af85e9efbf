import type { BrowserContext } from 'playwright-core';
import type { MainFrameGuard } from '../egress/main-frame-guard.js';
import type { RenderContext, RenderedOutput } from './render/render-context.js';
import type { PageBlocking } from './blocking/page-blocking.js';
import type { TakeOptions } from '../options/schema.js';
import type { CaptureWarning, ExtraOutput } from './engine.js';
import type { VideoEncoding } from './render/animation.js';
import type { Phase } from './timings.js';
import type { PageMetadata } from './steps/page-metadata.js';
import type { PendingRequest, RequestTracker } from './request-tracker.js';

/**
 * What the steps of one capture share: what a format renders from (the page, its CDP session, the
 * options, limits, timings and clock), and what earlier steps set up or found.
 */
export interface CaptureContext extends RenderContext {
  context: BrowserContext;
  /** Aborted at the capture's deadline. */
  signal: AbortSignal;
  blocking: PageBlocking;
  mainFrame: MainFrameGuard;
  tracker: RequestTracker;
  /** How animations are encoded here. */
  video: VideoEncoding;
  /** The main document's HTTP status, set by the navigate step. */
  mainStatus?: number;
  /** Its headers, with metadata=1. */
  mainHeaders?: Record<string, string>;
  /** metadata=1: what the page says about itself. */
  metadata?: PageMetadata;
  /** X-Shutter-Warning values found by the detection steps and the renderer (blank, bot_challenge, print_fallback). */
  warnings: Set<CaptureWarning>;
  /** Set by the wait step when the page was captured while requests were still pending. */
  partial?: PendingRequest[];
  /** Set by the render step. */
  output?: RenderedOutput;
  /** extra_formats: the same page state in other formats, set by their step. */
  extra?: ExtraOutput[];
}

/** One named step of a capture; its time counts toward its Server-Timing phase. */
export interface CaptureStep {
  name: string;
  /** Absent: the step measures its own phases (render: wait, capture, encode). */
  phase?: Phase;
  run(ctx: CaptureContext): Promise<void>;
  /** What the step was waiting for, for the 504 when the deadline passes during it. */
  timeoutHint?(options: TakeOptions): string | undefined;
}
