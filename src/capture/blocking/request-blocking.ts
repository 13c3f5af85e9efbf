import { Request as FilterRequest, type FiltersEngine } from '@ghostery/adblocker';
import type { Page, Request, Route } from 'playwright-core';
import { isChatRequest } from './chat-providers.js';

/** Playwright resource types as the filter engine names them. */
const FILTER_TYPES: Record<string, string> = {
  document: 'document',
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  xhr: 'xhr',
  fetch: 'fetch',
  websocket: 'websocket',
  eventsource: 'other',
  manifest: 'other',
  texttrack: 'media',
  other: 'other',
};

/** The page's own document is what the caller asked for: never blocked. */
function isMainDocument(request: Request, page: Page): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false;
  }
}

function sourceUrlOf(request: Request, page: Page): string {
  try {
    return request.frame().url();
  } catch {
    return page.url();
  }
}

/**
 * Aborts requests of ads/trackers (filter engine) and chat widgets before they leave the
 * browser. Registered only when a blocking flag is set: other captures pay nothing. Requests
 * it does not block fall back to any other route handler.
 */
export async function blockRequests(page: Page, engine: FiltersEngine | undefined, chats: boolean): Promise<void> {
  await page.route('**/*', async (route: Route) => {
    const request = route.request();
    const url = request.url();
    if (chats && isChatRequest(url)) return route.abort('blockedbyclient');
    if (engine && !isMainDocument(request, page)) {
      const type = (FILTER_TYPES[request.resourceType()] ?? 'other') as never;
      const { match, redirect } = engine.match(FilterRequest.fromRawDetails({ url, sourceUrl: sourceUrlOf(request, page), type }));
      if (redirect) return route.fulfill({ status: 200, contentType: redirect.contentType, body: redirect.body });
      if (match) return route.abort('blockedbyclient');
    }
    return route.fallback();
  });
}
