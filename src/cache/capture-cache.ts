import { createHash } from 'node:crypto';
import type { CaptureResult } from '../capture/engine.js';
import type { Db } from '../db/db.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { FileStore } from '../storage/file-store.js';
import { ByteLru } from './byte-lru.js';

/** A capture answered from the cache. */
export interface CachedCapture {
  result: CaptureResult;
  etag: string;
  createdAt: Date;
  expiresAt: Date;
}

const SWEEP_MS = 10 * 60_000;

/** Default bound of the files kept in memory by each node, and of one file among them. */
export const CACHE_MEMORY_BYTES = 32 * 1024 * 1024;
export const CACHE_MEMORY_ENTRY_BYTES = 4 * 1024 * 1024;

export interface CaptureCacheOptions {
  /** Bytes of cached files this node keeps in memory (0: none), beside the store. */
  memoryBytes?: number;
  /** Larger files are always read from the store. */
  memoryEntryBytes?: number;
}

/** The index row of an entry that has not expired. */
const liveEntry = preparedQuery((db, key: string, now: string) =>
  db
    .selectFrom('cache_entries')
    .select(['etag', 'size', 'format', 'content_type', 'created_at', 'expires_at', 'result'])
    .where('key', '=', key)
    .where('expires_at', '>', now),
);

/** A strong ETag of a file's bytes. */
export const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * The shared capture cache: files in the configured store (local or S3) under their identity, an
 * index in the database shared by every node (what, whose, until when). Expired entries are removed
 * by a sweep, index row first so that no node answers from a file being deleted.
 *
 * Each node also keeps recently used entries in memory (bounded by bytes), so that a hit reads no
 * file. The index row is still read on every hit, and the copy in memory answers only while the
 * row holds the same ETag: the database stays the one truth of what is cached until when.
 */
export class CaptureCache {
  private readonly timer: NodeJS.Timeout;
  private readonly memory: ByteLru<CachedCapture>;

  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
    options: CaptureCacheOptions = {},
  ) {
    this.memory = new ByteLru(options.memoryBytes ?? CACHE_MEMORY_BYTES, options.memoryEntryBytes ?? CACHE_MEMORY_ENTRY_BYTES);
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_MS);
    this.timer.unref();
  }

  async get(key: string, now = new Date()): Promise<CachedCapture | null> {
    const [row] = await liveEntry(this.db.kysely, key, now.toISOString());
    if (!row) {
      this.memory.delete(key);
      return null;
    }
    const size = Number(row.size);
    const kept = this.memory.get(key);
    if (kept && kept.etag === row.etag && kept.result.body.length === size) return kept;
    const body = await this.store.getObject(key);
    if (!body || body.length !== size) {
      this.memory.delete(key);
      return null;
    }
    const extra = JSON.parse(row.result) as Omit<CaptureResult, 'body' | 'format' | 'contentType'>;
    const entry: CachedCapture = {
      result: { ...extra, body, format: row.format as CaptureResult['format'], contentType: row.content_type },
      etag: row.etag,
      createdAt: new Date(row.created_at),
      expiresAt: new Date(row.expires_at),
    };
    this.memory.set(key, entry, size);
    return entry;
  }

  /** Bytes of cached files held in memory now. */
  get memoryBytes(): number {
    return this.memory.bytes;
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
    const entry: CachedCapture = { result, etag, createdAt: now, expiresAt };
    this.memory.set(key, entry, result.body.length);
    return entry;
  }

  async sweep(now = new Date()): Promise<number> {
    this.memory.prune((entry) => entry.expiresAt <= now);
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
    this.memory.clear();
  }
}
