import { parseAnimateOptions } from './parse-animate-options.js';
import { parseTakeOptions, type ParseContext } from './parse-take-options.js';
import type { TakeOptions } from './schema.js';

/**
 * The key under which a job's stored parameters name the endpoint that took them: `animate` for
 * /v1/animate; a take's carry none (so jobs stored before it still parse). No parameter has this
 * name, so a caller cannot set it: an unknown parameter is a 400 before any job exists.
 */
export const JOB_ENDPOINT = '_endpoint';

/** A stored job's parameters back into options, by the parse of the endpoint that accepted them. */
export function parseJobParams(params: Record<string, unknown>, context: ParseContext): TakeOptions {
  const { [JOB_ENDPOINT]: endpoint, ...rest } = params;
  return endpoint === 'animate' ? parseAnimateOptions(rest, context) : parseTakeOptions(rest, context);
}
