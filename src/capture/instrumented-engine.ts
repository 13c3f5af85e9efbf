import { AppError } from '../errors/app-error.js';
import type { Metrics } from '../observability/metrics.js';
import type { CaptureEngine } from './engine.js';

/**
 * The engine as the service uses it: every capture counted in `metrics` by format and outcome
 * (`ok`, or the error code it failed with), and the time of each phase it reached observed; the
 * pool, restarts and egress refusals are read from the engine's status() at each scrape.
 */
export function instrumentEngine(engine: CaptureEngine, metrics: Metrics): CaptureEngine {
  metrics.watchEngine(() => engine.status());
  return {
    async capture(options, timings, trace) {
      try {
        const result = await engine.capture(options, timings, trace);
        metrics.captureFinished(result.format, 'ok', timings.ms);
        return result;
      } catch (error) {
        metrics.captureFinished(options.format, error instanceof AppError ? error.code : 'internal_error', timings.ms);
        throw error;
      }
    },
    status: () => engine.status(),
    ...(engine.start ? { start: () => engine.start!() } : {}),
    ready: () => engine.ready(),
    ...(engine.animationReady ? { animationReady: () => engine.animationReady!() } : {}),
    close: () => engine.close(),
  };
}
