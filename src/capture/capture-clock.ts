/**
 * A capture's time budget. The wait for wait_until gives up `reserveMs` before the deadline (and
 * before the caller's delay), so a page held by a stalled third party is still rendered and
 * encoded in time instead of ending in 504 (issue 23); optional waits (fonts, lazy content) get
 * only what is left beyond half that reserve.
 */
export class CaptureClock {
  readonly startedAt = performance.now();
  readonly deadline: number;
  /** Time kept for rendering and encoding: a quarter of the timeout, 0.5–6 s. */
  readonly reserveMs: number;

  constructor(
    timeoutMs: number,
    private readonly delayMs = 0,
  ) {
    this.deadline = this.startedAt + timeoutMs;
    this.reserveMs = Math.min(6_000, Math.max(500, timeoutMs / 4));
  }

  /** performance.now() at which an unmet wait_until stops waiting and captures what is there. */
  get giveUpAt(): number {
    return this.deadline - this.reserveMs - this.delayMs;
  }

  /** Milliseconds an optional wait may take now, at most `capMs`. */
  spareMs(capMs: number): number {
    return Math.max(0, Math.min(capMs, this.deadline - this.reserveMs / 2 - performance.now()));
  }
}
