import { createHash } from 'node:crypto';
import type { CaptureResult } from '../capture/engine.js';
import type { Db } from '../db/database.js';
import type { FileStore } from '../storage/file-store.js';

/** A capture answered from the cache. */
export interface CachedCapture {
  result: CaptureResult;
  etag: string;
  createdAt: Date;
  expiresAt: Date;
}

const SWEEP_MS = 10 * 60_000;

/** A strong ETag of a file's bytes. */
export const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * The shared capture cache: files in the configured store (local or S3) under their identity, an
 * index in the database shared by every node (what, whose, until when). Expired entries are removed
 * by a sweep, index row first so that no node answers from a file being deleted.
 */
export class CaptureCache {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
  ) {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
  }

  async get(key: string, now = new Date()): Promise<CachedCapture | null> {
    const row = await this.db.kysely
      .selectFrom('cache_entries')
      .selectAll()
      .where('key', '=', key)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    if (!row) return null;
    const body = await this.store.getObject(key);
    if (!body || body.length !== Number(row.size)) return null;
    const extra = JSON.parse(row.result) as Omit<CaptureResult, 'body' | 'format' | 'contentType'>;
    return {
      result: { ...extra, body, format: row.format as CaptureResult['format'], contentType: row.content_type },
      etag: row.etag,
      createdAt: new Date(row.created_at),
      expiresAt: new Date(row.expires_at),
    };
  }

  /** Stores a fresh capture: the file first, then the index row that makes it visible. */
  async put(key: string, accountId: string, result: CaptureResult, ttlSeconds: number, now = new Date()): Promise<CachedCapture> {
    const etag = etagOf(result.body);
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const { body: _body, format, contentType, ...extra } = result;
    await this.store.putObject(key, result.body, contentType);
    const row = {
      key,
      account_id: accountId,
      format,
      content_type: contentType,
      size: result.body.length,
      etag,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
      result: JSON.stringify(extra),
    };
    await this.db.kysely
      .insertInto('cache_entries')
      .values(row)
      .onConflict((c) => c.column('key').doUpdateSet({ ...row }))
      .execute();
    return { result, etag, createdAt: now, expiresAt };
  }

  async sweep(now = new Date()): Promise<number> {
    const expired = await this.db.kysely
      .selectFrom('cache_entries')
      .select('key')
      .where('expires_at', '<=', now.toISOString())
      .limit(1000)
      .execute();
    for (const { key } of expired) {
      await this.db.kysely.deleteFrom('cache_entries').where('key', '=', key).where('expires_at', '<=', now.toISOString()).execute();
      await this.store.deleteObject(key).catch(() => undefined);
    }
    return expired.length;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
