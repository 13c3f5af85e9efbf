import type { BrowserContextOptions } from 'playwright-core';
import { defaultTakeOptions } from '../options/parse-take-options.js';
import type { TakeOptions } from '../options/schema.js';

/**
 * A fresh context per capture: the screen, the visitor (language, time zone, colour scheme,
 * position) and the user agent from the options, no downloads, no service workers. The default
 * user agent is a regular desktop Chrome (the headless one is refused or served differently by
 * many sites). Options left at their defaults add nothing, so a plain capture's context matches
 * the one the pool opens ahead.
 */
export function contextOptions(
  options: TakeOptions,
  browserVersion: string | undefined,
  proxy?: { server: string },
): BrowserContextOptions {
  const version = browserVersion ?? '130.0.0.0';
  const geolocation =
    options.geolocation_latitude !== undefined && options.geolocation_longitude !== undefined
      ? { latitude: options.geolocation_latitude, longitude: options.geolocation_longitude, accuracy: options.geolocation_accuracy ?? 0 }
      : undefined;
  return {
    ...(proxy ? { proxy } : {}),
    viewport: { width: options.viewport_width, height: options.viewport_height },
    deviceScaleFactor: options.device_scale_factor,
    ...(options.viewport_mobile ? { isMobile: true } : {}),
    ...(options.viewport_has_touch ? { hasTouch: true } : {}),
    ...(options.bypass_csp ? { bypassCSP: true } : {}),
    ...(options.dark_mode ? { colorScheme: 'dark' as const } : {}),
    ...(options.reduced_motion ? { reducedMotion: 'reduce' as const } : {}),
    ...(options.time_zone ? { timezoneId: options.time_zone } : {}),
    ...(geolocation ? { geolocation, permissions: ['geolocation'] } : {}),
    acceptDownloads: false,
    serviceWorkers: 'block',
    locale: options.locale ?? 'en-US',
    userAgent:
      options.user_agent ?? `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36`,
  };
}

/** The context of a capture with every option at its default (the pool opens one ahead at browser start). */
export function defaultContextOptions(browserVersion: string): BrowserContextOptions {
  return contextOptions(defaultTakeOptions(), browserVersion);
}
