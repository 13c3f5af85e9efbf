import { AppError } from '../../errors/app-error.js';

/**
 * Rethrows a selector the page's browser cannot parse (the options layer's parser is more
 * lenient) as 422 selector_invalid naming the parameter; any other error as it is.
 */
export function rethrowSelectorError(error: unknown, parameter: string, selector: string): never {
  const message = error instanceof Error ? error.message : String(error);
  if (/not a valid selector|SyntaxError|Unexpected token|Invalid selector/i.test(message)) {
    const which = parameter === 'selector' ? 'selector' : `${parameter} selector`;
    throw new AppError('selector_invalid', `the page's browser cannot parse the ${which} ${JSON.stringify(selector)}`, {
      details: [{ parameter, message: 'is not a valid CSS selector', value: selector }],
    });
  }
  throw error;
}
