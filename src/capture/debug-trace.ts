import type { CDPSession, Page, Request } from 'playwright-core';

/** One network request of the page, as a debug bundle lists it. */
export interface TracedRequest {
  url: string;
  type: string;
  method: string;
  status: number | null;
  /** Response headers and body as received (encoded). */
  bytes: number | null;
  ms: number | null;
  /** The option or guard that stopped it: egress, block_ads, block_trackers, block_requests, block_resources, block_chats. */
  blocked_by: string | null;
  /** Chromium's net error when it failed. */
  error: string | null;
}

/** What debug=1 keeps of a capture (issue 16); the HTTP layer stores it as the bundle. */
export interface DebugTrace {
  steps: Array<{ name: string; ms: number; failed?: boolean }>;
  requests: TracedRequest[];
  console: Array<{ type: string; text: string }>;
  errors: string[];
  /** A viewport PNG at the end of the capture, or at the moment it failed. */
  screenshot?: Buffer;
  /** The main document's HTML at the same moment. */
  html?: string;
}

const MAX_REQUESTS = 1_000;
const MAX_MESSAGES = 500;
const MAX_TEXT = 2_000;
/** A page too busy to paint or serialise must not hold a failed capture's answer. */
const SNAPSHOT_MS = 2_000;

/** What Chromium reports for any connection the egress proxy did not open (SOCKS5, or CONNECT on a country listener). */
const PROXY_GAVE_UP = /ERR_(SOCKS_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED)$/;

export const newDebugTrace = (): DebugTrace => ({ steps: [], requests: [], console: [], errors: [] });

/** Fills a DebugTrace from one page's events; only made for debug=1 captures. */
export class DebugRecorder {
  private readonly pending = new Map<Request, { entry: TracedRequest; at: number }>();

  constructor(
    readonly trace: DebugTrace,
    private readonly page: Page,
    /** Why a failed request failed, when Shutter refused it. */
    private readonly blockedBy: (request: Request) => string | undefined,
    /** The network error the egress proxy met for a request (`net::ERR_…`), if it recorded one. */
    private readonly proxyError: (request: Request) => string | undefined = () => undefined,
  ) {
    page.on('request', (request) => {
      if (trace.requests.length >= MAX_REQUESTS) return;
      const entry: TracedRequest = {
        url: request.url().slice(0, MAX_TEXT),
        type: request.resourceType(),
        method: request.method(),
        status: null,
        bytes: null,
        ms: null,
        blocked_by: null,
        error: null,
      };
      trace.requests.push(entry);
      this.pending.set(request, { entry, at: performance.now() });
    });
    page.on('requestfinished', (request) => void this.finished(request));
    page.on('requestfailed', (request) => {
      const seen = this.done(request);
      if (!seen) return;
      const error = request.failure()?.errorText ?? null;
      // Chromium only learns that the proxy gave up; the proxy knows why (refused, timed out…).
      seen.error = (error && PROXY_GAVE_UP.test(error) ? this.proxyError(request) : undefined) ?? error;
      seen.blocked_by = this.blockedBy(request) ?? null;
    });
    page.on('console', (message) => {
      if (trace.console.length < MAX_MESSAGES) trace.console.push({ type: message.type(), text: message.text().slice(0, MAX_TEXT) });
    });
    page.on('pageerror', (error) => {
      if (trace.errors.length < MAX_MESSAGES) trace.errors.push((error.stack ?? error.message).slice(0, MAX_TEXT));
    });
  }

  step(name: string, ms: number, failed = false): void {
    this.trace.steps.push({ name, ms: Math.round(ms * 10) / 10, ...(failed ? { failed } : {}) });
  }

  /** The viewport and the HTML as they are now; each bounded, so a hung page gives what it can. */
  async snapshot(cdp: CDPSession): Promise<void> {
    const bounded = <T>(work: Promise<T>) =>
      Promise.race([work, new Promise<undefined>((resolve) => setTimeout(resolve, SNAPSHOT_MS))]).catch(() => undefined);
    const shot = await bounded(cdp.send('Page.captureScreenshot', { format: 'png' }));
    if (shot) this.trace.screenshot = Buffer.from(shot.data, 'base64');
    const html = await bounded(this.page.content());
    if (html !== undefined) this.trace.html = html;
  }

  private async finished(request: Request): Promise<void> {
    const seen = this.done(request);
    if (!seen) return;
    const response = await request.response().catch(() => null);
    seen.status = response?.status() ?? null;
    const sizes = await request.sizes().catch(() => undefined);
    if (sizes) seen.bytes = sizes.responseHeadersSize + sizes.responseBodySize;
  }

  private done(request: Request): TracedRequest | undefined {
    const started = this.pending.get(request);
    if (!started) return undefined;
    this.pending.delete(request);
    started.entry.ms = Math.round(performance.now() - started.at);
    return started.entry;
  }
}
