import type { Page, Request } from 'playwright-core';
import { navigationFailed } from '../errors/navigation-failure.js';
import { AppError } from '../errors/app-error.js';
import type { EndpointOutcome } from './endpoint-log.js';
import { bareHost } from './resolver.js';

/** What the guard needs from the egress proxy. */
export interface OutcomeRecord {
  outcomeOf(url: string): EndpointOutcome | undefined;
}

/** Explains a failed main-document load; see guardMainFrame. */
export interface MainFrameGuard {
  /** Throws 403 target_forbidden if the proxy refused a navigation of the main frame. */
  check(): void;
  /** For a failed navigation: 403 if the proxy refused it, 422 naming the real network error, else the error as is. */
  rethrow(error: unknown): never;
}

/**
 * The proxy refuses a forbidden endpoint for every page; only here is it known whether the
 * refused request was the page's own document (a redirect, a meta refresh, a script navigation):
 * then the capture fails with 403 target_forbidden. Subresources stay blocked and the capture goes
 * on. Chromium only sees that the proxy gave up, so the network error the proxy met (connection
 * refused, timed out…) is put back into the 422 message. Only failed requests are watched.
 */
export function guardMainFrame(page: Page, egress: OutcomeRecord): MainFrameGuard {
  let failure: { host: string; outcome: EndpointOutcome } | undefined;
  page.on('requestfailed', (request: Request) => {
    if (failure?.outcome === 'forbidden' || !request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
    const outcome = egress.outcomeOf(request.url());
    if (outcome) failure = { host: bareHost(new URL(request.url()).hostname), outcome };
  });
  const check = () => {
    if (failure?.outcome !== 'forbidden') return;
    throw new AppError(
      'target_forbidden',
      `the page or a redirect led to ${failure.host}, which resolves to an address that is not allowed`,
    );
  };
  return {
    check,
    rethrow(error: unknown): never {
      check();
      if (failure?.outcome === 'proxy_failed') {
        throw new AppError('proxy_failed', 'the proxy for ip_country_code failed to load the page; retry shortly', {
          retryAfterSeconds: 5,
        });
      }
      if (failure && error instanceof AppError && error.code === 'navigation_failed') {
        throw navigationFailed(failure.outcome, { host: failure.host, ...httpStatusOf(error) });
      }
      throw error;
    },
  };
}

function httpStatusOf(error: AppError): { httpStatus?: number } {
  const status = error.extra.facts?.http_status;
  return typeof status === 'number' ? { httpStatus: status } : {};
}
