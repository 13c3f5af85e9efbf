/** A quota period: one calendar month in UTC. */
export interface Period {
  /** YYYY-MM, the key usage is counted under. */
  id: string;
  start: Date;
  /** The first instant of the next period. */
  end: Date;
}

/** The calendar month (UTC) that `now` falls in. */
export function periodOf(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { id: start.toISOString().slice(0, 7), start, end };
}

/** The UTC day of `at` as YYYY-MM-DD, the key of per-day usage. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Whole seconds from `now` until `until`, at least 1 (a Retry-After of 0 invites a busy loop). */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}
