import { AppError, type ErrorDetail } from '../../src/errors/app-error.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

/** parseTakeOptions on a url capture of example.com plus `raw`, with no country proxies. */
export const parseOptions = (raw: Record<string, unknown>, maxPixels?: number) =>
  parseTakeOptions({ url: 'https://example.com/', ...raw }, { countries: [], ...(maxPixels ? { maxPixels } : {}) });

/** The details of the 400 that parseOptions(raw) throws; fails the test when it does not throw one. */
export function problemsOf(raw: Record<string, unknown>, maxPixels?: number): ErrorDetail[] {
  try {
    parseOptions(raw, maxPixels);
  } catch (error) {
    if (error instanceof AppError) return error.extra.details ?? [];
    throw error;
  }
  throw new Error(`expected a 400 for ${JSON.stringify(raw)}`);
}
