import { Timings } from '../capture/timings.js';
import { AppError } from '../errors/app-error.js';
import { parseTakeOptions, type ParseContext } from '../options/parse-take-options.js';
import type { TakeBilling, TakeCapture } from '../take/take-capture.js';
import { ToolCaptureError, type CaptureForTool } from './tool-capture.js';

/**
 * Captures through this service's take use case, with the same parsing, charge, egress guard and
 * request log as /v1/take; `billing` absent (`shutter mcp` on the local engine): nobody is charged.
 */
export function localCapture(take: TakeCapture, context: ParseContext, billing?: TakeBilling): CaptureForTool {
  return async (params) => {
    try {
      const options = parseTakeOptions(params, context);
      const { result } = await take.take({ options, timings: new Timings(), ...(billing ? { billing } : {}) });
      return { body: result.body, contentType: result.contentType.split(';')[0]!, warnings: result.warnings ?? [] };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // The parameter-level reasons of a 400 are what lets an agent correct its call.
      const details = (error.extra.details ?? []).map((d) => `${d.parameter}: ${d.message}`);
      throw new ToolCaptureError(error.code, [error.message, ...details].join('; '));
    }
  };
}
