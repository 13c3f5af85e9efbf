import type { Format, TakeFormat } from '../formats/registry.js';
import type { TakeOptions } from '../options/schema.js';
import type { ResolverStats } from '../egress/caching-resolver.js';
import type { PageMetadata } from './steps/page-metadata.js';
import type { PendingRequest } from './request-tracker.js';
import type { DebugTrace } from './debug-trace.js';
import type { Timings } from './timings.js';
import type { EgressBlockReason, RestartReason } from '../observability/metrics.js';

/** The file a capture produced. */
export interface CaptureResult {
  body: Buffer;
  format: Format;
  contentType: string;
  /** Set when a full-page capture was cut at the operator's height cap. */
  truncated?: 'height';
  /** `selector` matched nothing and error_on_selector_not_found=0: the whole page was captured. */
  selector?: 'not-found';
  /**
   * X-Shutter-Warning values; `partial_load`: captured while requests were still pending; `blank`:
   * the image is a single colour; `bot_challenge`: the page is a bot wall; `print_fallback`: printing
   * hung and the PDF was printed again with the page's scripts stopped; `main_content_not_found`:
   * main_content=1 found no article, so the whole page was rendered.
   */
  warnings?: CaptureWarning[];
  /** With partial_load: what was still pending when Shutter stopped waiting (at most 10). */
  pendingRequests?: PendingRequest[];
  /** metadata=1. */
  metadata?: PageMetadata;
  /** extra_formats: the same page state in other formats, in the order rendered. */
  extra?: ExtraOutput[];
}

/** One more output of the same page (extra_formats). */
export interface ExtraOutput {
  format: TakeFormat;
  contentType: string;
  body: Buffer;
}

export type CaptureWarning = 'partial_load' | 'blank' | 'bot_challenge' | 'print_fallback' | 'main_content_not_found';

export interface EngineStatus {
  browser: string | undefined;
  pool: { size: number; busy: number; queued: number };
  /** The egress guard's DNS counters, when its resolver keeps them. */
  resolver?: ResolverStats;
  /** Browsers replaced since start, by reason (GET /metrics). */
  restarts?: Partial<Record<RestartReason, number>>;
  /** Captures and page requests the egress guard refused since start, by reason (GET /metrics). */
  egressBlocked?: Partial<Record<EgressBlockReason, number>>;
}

/** What the HTTP layer needs from a capture engine; tests inject a stub. */
export interface CaptureEngine {
  /** `trace` (debug=1) is filled with what the bundle holds, whether the capture succeeds or fails. */
  capture(options: TakeOptions, timings: Timings, trace?: DebugTrace): Promise<CaptureResult>;
  status(): EngineStatus;
  /** Launches what captures need (the browser); engines with nothing to launch omit it. */
  start?(): Promise<void>;
  /** True when a capture could start now (browser connected). */
  ready(): boolean;
  /** False when animations cannot be encoded here (no ffmpeg); engines that never animate omit it. */
  animationReady?(): boolean;
  close(): Promise<void>;
}
