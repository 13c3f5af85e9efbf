import type { ParseContext } from '../options/parse-take-options.js';
import type { AppDeps } from './app.js';

/** What parsing capture options needs from the service: its proxy countries and pixel cap (take and bulk alike). */
export function parseContextOf(deps: AppDeps): ParseContext {
  return { countries: deps.countries ?? [], ...(deps.maxPixels !== undefined ? { maxPixels: deps.maxPixels } : {}) };
}
