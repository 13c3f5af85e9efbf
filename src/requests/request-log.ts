import type { Db } from '../db/db.js';
import { preparedQuery } from '../db/prepared-query.js';

/** Captures are listed for 7 days; their debug bundles are kept 24 hours (DESIGN.md §4.5). */
export const REQUEST_LOG_DAYS = 7;
export const BUNDLE_HOURS = 24;
const SWEEP_MS = 10 * 60_000;

/** Written for every capture request (cache hits too). */
const insertRequest = preparedQuery(
  (
    db,
    requestId: string,
    accountId: string,
    keyId: string,
    createdAt: string,
    url: string | null,
    format: string,
    status: number,
    errorCode: string | null,
    durationMs: number,
    bundle: string | null,
    bundleExpiresAt: string | null,
  ) =>
    db
      .insertInto('capture_requests')
      .values({
        request_id: requestId,
        account_id: accountId,
        key_id: keyId,
        created_at: createdAt,
        url,
        format,
        status,
        error_code: errorCode,
        duration_ms: durationMs,
        bundle,
        bundle_expires_at: bundleExpiresAt,
      })
      .onConflict((c) => c.column('request_id').doNothing()),
);

/** One capture request as the dashboard lists it. */
export interface LoggedRequest {
  requestId: string;
  keyId: string;
  createdAt: string;
  url: string | null;
  format: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  /** A debug bundle is there (and not expired). */
  hasBundle: boolean;
}

export interface NewLoggedRequest extends Omit<LoggedRequest, 'hasBundle' | 'createdAt'> {
  accountId: string;
  createdAt: Date;
  /** The debug bundle's JSON, for debug=1 captures. */
  bundle?: unknown;
}

/**
 * Recent captures per account, in the shared database so every node sees every request, and the
 * debug bundles' JSON beside them (their screenshot and HTML are in the file store). Expired rows
 * and bundles are removed by a sweep.
 */
export class RequestLog {
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly db: Db) {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
  }

  async record(entry: NewLoggedRequest): Promise<void> {
    const hasBundle = entry.bundle !== undefined;
    await insertRequest(
      this.db.kysely,
      entry.requestId,
      entry.accountId,
      entry.keyId,
      entry.createdAt.toISOString(),
      entry.url?.slice(0, 2048) ?? null,
      entry.format,
      entry.status,
      entry.errorCode,
      Math.round(entry.durationMs),
      hasBundle ? JSON.stringify(entry.bundle) : null,
      hasBundle ? new Date(entry.createdAt.getTime() + BUNDLE_HOURS * 3600_000).toISOString() : null,
    );
  }

  /** The account's most recent captures, newest first. */
  async recent(accountId: string, limit = 50): Promise<LoggedRequest[]> {
    const now = new Date().toISOString();
    const rows = await this.db.kysely
      .selectFrom('capture_requests')
      .select(['request_id', 'key_id', 'created_at', 'url', 'format', 'status', 'error_code', 'duration_ms', 'bundle_expires_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      requestId: r.request_id,
      keyId: r.key_id,
      createdAt: r.created_at,
      url: r.url,
      format: r.format,
      status: Number(r.status),
      errorCode: r.error_code,
      durationMs: Number(r.duration_ms),
      hasBundle: r.bundle_expires_at !== null && r.bundle_expires_at > now,
    }));
  }

  /** The debug bundle of one of the account's requests; undefined when there is none, it expired, or it is another account's. */
  async bundle(accountId: string, requestId: string): Promise<unknown> {
    const row = await this.db.kysely
      .selectFrom('capture_requests')
      .select(['bundle', 'bundle_expires_at'])
      .where('request_id', '=', requestId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row?.bundle || !row.bundle_expires_at || row.bundle_expires_at <= new Date().toISOString()) return undefined;
    return JSON.parse(row.bundle) as unknown;
  }

  /** Drops bundles past 24 h and rows past 7 days. */
  async sweep(now = new Date()): Promise<void> {
    await this.db.kysely
      .updateTable('capture_requests')
      .set({ bundle: null, bundle_expires_at: null })
      .where('bundle_expires_at', '<=', now.toISOString())
      .execute();
    await this.db.kysely
      .deleteFrom('capture_requests')
      .where('created_at', '<', new Date(now.getTime() - REQUEST_LOG_DAYS * 86_400_000).toISOString())
      .execute();
  }

  close(): void {
    clearInterval(this.timer);
  }
}
