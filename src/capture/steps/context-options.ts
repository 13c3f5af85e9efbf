import type { BrowserContextOptions } from 'playwright-core';
import { defaultTakeOptions } from '../../options/parse-take-options.js';
import type { TakeOptions } from '../../options/schema.js';

/**
 * A fresh context per capture: viewport and pixel ratio from the options, no downloads, and
 * a regular desktop Chrome user agent (the headless one is refused or served differently by many sites).
 * bypassCSP lets hide_selectors and styles work on pages with a strict Content-Security-Policy.
 */
export function contextOptions(
  options: TakeOptions,
  browserVersion: string | undefined,
  proxy?: { server: string },
): BrowserContextOptions {
  const version = browserVersion ?? '130.0.0.0';
  return {
    ...(proxy ? { proxy } : {}),
    viewport: { width: options.viewport_width, height: options.viewport_height },
    deviceScaleFactor: options.device_scale_factor,
    bypassCSP: true,
    acceptDownloads: false,
    serviceWorkers: 'block',
    locale: 'en-US',
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36`,
  };
}

/** The context of a capture with every option at its default (the pool opens one ahead at browser start). */
export function defaultContextOptions(browserVersion: string): BrowserContextOptions {
  return contextOptions(defaultTakeOptions(), browserVersion);
}
