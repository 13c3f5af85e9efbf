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

/** What one page's requests are checked against; only what the options asked for is set. */
export interface RequestRules {
  /** block_ads (ads and trackers) or block_trackers (EasyPrivacy). */
  engines: FiltersEngine[];
  chats: boolean;
  /** block_requests, compiled. */
  patterns: RegExp[];
  /** block_resources. */
  types: ReadonlySet<string>;
  /** Which option each engine stands for (block_ads, block_trackers), for the debug bundle. */
  engineNames: string[];
  /** Told which option blocked a request (debug bundles' blocked_by). */
  onBlocked(request: Request, option: string): void;
}

/** A block_requests pattern: `*` matches any characters, everything else itself; the whole URL must match. */
export function urlPattern(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

/**
 * Aborts requests of ads/trackers (filter engines), chat widgets, matching URL patterns and
 * resource types before they leave the browser. Registered only when one of those options is
 * set: other captures pay nothing. Requests it does not block fall back to any other route handler.
 */
export async function blockRequests(page: Page, rules: RequestRules): Promise<void> {
  await page.route('**/*', async (route: Route) => {
    const request = route.request();
    const url = request.url();
    const block = (option: string) => {
      rules.onBlocked(request, option);
      return route.abort('blockedbyclient');
    };
    if (rules.chats && isChatRequest(url)) return block('block_chats');
    if (!isMainDocument(request, page)) {
      if (rules.types.has(request.resourceType())) return block('block_resources');
      if (rules.patterns.some((re) => re.test(url))) return block('block_requests');
      if (rules.engines.length > 0) {
        const type = (FILTER_TYPES[request.resourceType()] ?? 'other') as never;
        const details = FilterRequest.fromRawDetails({ url, sourceUrl: sourceUrlOf(request, page), type });
        for (const [i, engine] of rules.engines.entries()) {
          const { match, redirect } = engine.match(details);
          if (redirect) {
            rules.onBlocked(request, rules.engineNames[i]!);
            return route.fulfill({ status: 200, contentType: redirect.contentType, body: redirect.body });
          }
          if (match) return block(rules.engineNames[i]!);
        }
      }
    }
    return route.fallback();
  });
}
