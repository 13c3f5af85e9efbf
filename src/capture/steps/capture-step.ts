import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { MainFrameGuard } from '../../egress/main-frame-guard.js';
import type { RenderedOutput } from '../../formats/output-format.js';
import type { TakeOptions } from '../../options/schema.js';
import type { PageBlocking } from '../blocking/page-blocking.js';
import type { CaptureClock } from '../capture-clock.js';
import type { Phase, Timings } from '../timings.js';
import type { PendingRequest, RequestTracker } from './request-tracker.js';
import type { ImageLimits } from './screenshot.js';

/** What the steps of one capture share: the page, the options, and what earlier steps found. */
export interface CaptureContext {
  context: BrowserContext;
  page: Page;
  /** The capture's own CDP session. */
  cdp: CDPSession;
  options: TakeOptions;
  limits: ImageLimits;
  timings: Timings;
  clock: CaptureClock;
  /** Aborted at the capture's deadline. */
  signal: AbortSignal;
  blocking: PageBlocking;
  mainFrame: MainFrameGuard;
  tracker: RequestTracker;
  /** Set by the wait step when the page was captured while requests were still pending. */
  partial?: PendingRequest[];
  /** Set by the render step. */
  output?: RenderedOutput;
}

/** One named step of a capture; its time counts toward its Server-Timing phase. */
export interface CaptureStep {
  name: string;
  /** Absent: the step measures its own phases (render: wait, capture, encode). */
  phase?: Phase;
  run(ctx: CaptureContext): Promise<void>;
}
