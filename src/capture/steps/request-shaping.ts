import type { BrowserContext, CDPSession } from 'playwright-core';
import type { TakeOptions } from '../../options/schema.js';
import { HTML_ORIGIN } from './navigate.js';

/** Cookies go into the context's jar before navigation (default domain: the target's host). */
export async function setCookies(context: BrowserContext, options: TakeOptions): Promise<void> {
  if (!options.cookies?.length) return;
  const target = new URL(options.url ?? HTML_ORIGIN);
  await context.addCookies(
    options.cookies.map(({ domain, path, ...cookie }) =>
      domain || path ? { ...cookie, domain: domain ?? target.hostname, path: path ?? '/' } : { ...cookie, url: target.origin },
    ),
  );
}

interface PausedRequest {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
}

/**
 * headers, on requests to the target's origin only, through Fetch interception on our own CDP
 * session rather than a Playwright route: Playwright re-applies a route's headers to every
 * redirect hop, so a same-origin URL redirecting to a third party would hand it the caller's
 * secrets. Chromium applies a Fetch override to one hop only, and every hop is paused here, so each
 * one is judged by its own origin. Nothing is intercepted when no headers were given.
 */
export async function addTargetHeaders(cdp: CDPSession, options: TakeOptions): Promise<void> {
  const extra = options.headers;
  if (!extra?.length || options.url === undefined) return;
  const origin = new URL(options.url).origin;
  const names = new Set(extra.map(([name]) => name.toLowerCase()));
  cdp.on('Fetch.requestPaused', (event: PausedRequest) => {
    const { requestId, request } = event;
    const continued =
      originOf(request.url) === origin
        ? cdp.send('Fetch.continueRequest', {
            requestId,
            headers: [
              ...Object.entries(request.headers)
                .filter(([name]) => !names.has(name.toLowerCase()))
                .map(([name, value]) => ({ name, value })),
              ...extra.map(([name, value]) => ({ name, value })),
            ],
          })
        : cdp.send('Fetch.continueRequest', { requestId });
    // The page or context may close while a request is paused; nothing is left to continue then.
    continued.catch(() => undefined);
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
