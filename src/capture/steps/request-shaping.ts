import type { BrowserContext, Page } from 'playwright-core';
import type { TakeOptions } from '../../options/schema.js';
import { HTML_ORIGIN } from './navigate.js';

/**
 * cookies and headers, before navigation. Cookies go into the context's jar (default domain: the
 * target's host). Headers are added only to requests whose origin is the target's: a route with
 * an origin predicate, so other requests are not even intercepted, and nothing is when no headers
 * were given. Known limit: Chromium follows a redirect with the headers of the request it answers,
 * so a same-origin URL that redirects to another origin passes them on (Playwright does not route
 * redirects; documented in docs/api.md).
 */
export async function shapeRequests(context: BrowserContext, page: Page, options: TakeOptions): Promise<void> {
  const target = new URL(options.url ?? HTML_ORIGIN);
  if (options.cookies?.length) {
    await context.addCookies(
      options.cookies.map(({ domain, path, ...cookie }) =>
        domain || path ? { ...cookie, domain: domain ?? target.hostname, path: path ?? '/' } : { ...cookie, url: target.origin },
      ),
    );
  }
  const extra = options.headers;
  if (!extra?.length || options.url === undefined) return;
  const origin = target.origin;
  await page.route(
    (url) => url.origin === origin,
    (route) => route.fallback({ headers: { ...route.request().headers(), ...Object.fromEntries(extra) } }),
  );
}
