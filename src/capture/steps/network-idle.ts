import type { Page, Request } from 'playwright-core';

/** Quiet period that counts as idle, as in Puppeteer's networkidle0/2. */
const IDLE_MS = 500;
const POLL_MS = 25;

/**
 * Counts the page's requests in flight from before navigation, so that networkidle0
 * (no request for 500 ms) and networkidle2 (at most 2) can be awaited afterwards.
 */
export class NetworkIdleTracker {
  private readonly inFlight = new Set<Request>();
  /** When the count last rose above the threshold being waited for (or tracking began). */
  private busySince = performance.now();

  constructor(
    private readonly page: Page,
    private readonly maxInFlight: number,
  ) {
    page.on('request', this.onStart);
    page.on('requestfinished', this.onEnd);
    page.on('requestfailed', this.onEnd);
  }

  private readonly onStart = (request: Request) => {
    this.inFlight.add(request);
    if (this.inFlight.size > this.maxInFlight) this.busySince = performance.now();
  };

  private readonly onEnd = (request: Request) => {
    // The quiet period starts when the count falls back to the threshold.
    if (this.inFlight.delete(request) && this.inFlight.size === this.maxInFlight) this.busySince = performance.now();
  };

  /** Resolves once at most maxInFlight requests have been open for 500 ms in a row. */
  async waitForIdle(signal?: AbortSignal): Promise<void> {
    try {
      while (!signal?.aborted) {
        if (this.inFlight.size <= this.maxInFlight && performance.now() - this.busySince >= IDLE_MS) return;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.page.off('request', this.onStart);
    this.page.off('requestfinished', this.onEnd);
    this.page.off('requestfailed', this.onEnd);
  }
}
