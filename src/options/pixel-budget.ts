import type { ErrorDetail } from '../errors/app-error.js';

/** What the budget check needs of the options. */
interface Viewport {
  viewport_width: number;
  viewport_height: number;
  device_scale_factor: number;
}

/**
 * A viewport image larger than the operator's pixel budget (SHUTTER_MAX_PIXELS), as the 400's
 * details, or none. Checked while parsing, before a slot or quota is reserved; full-page captures
 * are cut to fit instead (X-Shutter-Truncated).
 */
export function pixelBudgetProblems(options: Viewport, maxPixels: number): ErrorDetail[] {
  const dsf = options.device_scale_factor;
  const pixels = options.viewport_width * options.viewport_height * dsf * dsf;
  if (pixels <= maxPixels) return [];
  const message = `the image would be ${Math.round(pixels).toLocaleString('en-US')} pixels (viewport_width × viewport_height × device_scale_factor²); the pixel budget is ${maxPixels.toLocaleString('en-US')}`;
  return ['viewport_width', 'viewport_height', 'device_scale_factor'].map((parameter) => ({
    parameter,
    code: 'invalid_parameter' as const,
    message,
  }));
}
