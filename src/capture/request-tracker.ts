import type { Page, Request } from 'playwright-core';

/** A request still in flight, as the 504 details and partial_load warnings show it. */
export interface PendingRequest {
  url: string;
  age_ms: number;
}

/** Quiet period that counts as idle, as in Puppeteer's networkidle0/2. */
const IDLE_MS = 500;
const POLL_MS = 25;
/** Longest URL reported back; data: URLs and tracking query strings can be huge. */
const MAX_URL_CHARS = 500;
/** Most pending requests reported (DESIGN.md §4.5). */
export const MAX_REPORTED = 10;

interface Flight {
  startedAt: number;
  /** When response headers arrived: from then on the request has "received something". */
  respondedAt?: number;
}

/**
 * The page's requests in flight, from before navigation: what networkidle0/2 count, what the
 * stall rule looks at (a request that has received nothing for stall_timeout), and what a 504
 * or a partial_load names. The main document's own request is never "stalled": without it there
 * is nothing to capture.
 */
const isData = (request: Request) => request.resourceType() === 'fetch' || request.resourceType() === 'xhr';

export class RequestTracker {
  private readonly flights = new Map<Request, Flight>();
  /** When the count last rose above the idle threshold, or fell back to it (or tracking began). */
  private busySince = performance.now();
  /** fetch/XHR in flight, and since when there has been none (wait_until=ready). */
  private dataInFlight = 0;
  private dataQuietSince = performance.now();

  /** @param idleThreshold requests allowed in flight for networkidle (0 or 2). */
  constructor(
    private readonly page: Page,
    private readonly idleThreshold = 0,
  ) {
    page.on('request', this.onStart);
    page.on('response', this.onResponse);
    page.on('requestfinished', this.onEnd);
    page.on('requestfailed', this.onEnd);
  }

  private readonly onStart = (request: Request) => {
    this.flights.set(request, { startedAt: performance.now() });
    if (isData(request)) this.dataInFlight++;
    if (this.flights.size > this.idleThreshold) this.busySince = performance.now();
  };

  private readonly onResponse = (response: { request(): Request }) => {
    const flight = this.flights.get(response.request());
    if (flight) flight.respondedAt = performance.now();
  };

  private readonly onEnd = (request: Request) => {
    // The quiet period starts when the count falls back to the threshold.
    if (!this.flights.delete(request)) return;
    if (this.flights.size === this.idleThreshold) this.busySince = performance.now();
    if (isData(request) && --this.dataInFlight === 0) this.dataQuietSince = performance.now();
  };

  /** Resolves once at most idleThreshold requests have been in flight for 500 ms in a row. */
  async idle(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.flights.size <= this.idleThreshold && performance.now() - this.busySince >= IDLE_MS) return;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Resolves once no fetch or XHR has been in flight for 500 ms in a row (images, fonts and trackers aside). */
  async dataIdle(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.dataInFlight === 0 && performance.now() - this.dataQuietSince >= IDLE_MS) return;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * True when requests are in flight and every one of them has received nothing (not even
   * headers) for `stallMs`: only stalled third parties are holding the page.
   */
  onlyStalled(stallMs: number): boolean {
    if (this.flights.size === 0) return false;
    const now = performance.now();
    const mainFrame = this.page.mainFrame();
    for (const [request, flight] of this.flights) {
      if (flight.respondedAt !== undefined || now - flight.startedAt < stallMs) return false;
      if (request.isNavigationRequest() && request.frame() === mainFrame) return false;
    }
    return true;
  }

  /** The requests in flight, oldest first (the map keeps start order), at most MAX_REPORTED. */
  pending(): PendingRequest[] {
    const now = performance.now();
    return [...this.flights]
      .slice(0, MAX_REPORTED)
      .map(([request, flight]) => ({ url: request.url().slice(0, MAX_URL_CHARS), age_ms: Math.round(now - flight.startedAt) }));
  }

  dispose(): void {
    this.page.off('request', this.onStart);
    this.page.off('response', this.onResponse);
    this.page.off('requestfinished', this.onEnd);
    this.page.off('requestfailed', this.onEnd);
  }
}
