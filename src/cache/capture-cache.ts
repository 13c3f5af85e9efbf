import { createHash } from 'node:crypto';
import type { CaptureResult, ExtraOutput } from '../capture/engine.js';
import type { TakeFormat } from '../formats/registry.js';
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

/** What the index row keeps of a result beside its file: extra_formats as their format, type and size (their bytes are objects of their own). */
type StoredResult = Omit<CaptureResult, 'body' | 'format' | 'contentType' | 'extra'> & {
  extra?: Array<{ format: TakeFormat; contentType: string; size: number }>;
};

/** The store object of one extra_formats output of the entry `key`: hex, as the store wants cache object names. */
const extraObjectName = (key: string, format: TakeFormat) => createHash('sha256').update(`${key}:extra:${format}`).digest('hex');

const extraFilesOf = (result: string): NonNullable<StoredResult['extra']> => {
  try {
    return (JSON.parse(result) as StoredResult).extra ?? [];
  } catch {
    return [];
  }
};

/** Bytes an entry holds in memory: its file and its extra outputs. */
const bytesOf = (result: CaptureResult) => result.body.length + (result.extra ?? []).reduce((n, e) => n + e.body.length, 0);

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
    const { extra: extraFiles, ...rest } = JSON.parse(row.result) as StoredResult;
    // extra_formats: each output is an object of its own beside the main file; one missing is a miss.
    const extra: ExtraOutput[] = [];
    for (const file of extraFiles ?? []) {
      const extraBody = await this.store.getObject(extraObjectName(key, file.format));
      if (!extraBody || extraBody.length !== file.size) {
        this.memory.delete(key);
        return null;
      }
      extra.push({ format: file.format, contentType: file.contentType, body: extraBody });
    }
    const entry: CachedCapture = {
      result: {
        ...rest,
        ...(extraFiles ? { extra } : {}),
        body,
        format: row.format as CaptureResult['format'],
        contentType: row.content_type,
      },
      etag: row.etag,
      createdAt: new Date(row.created_at),
      expiresAt: new Date(row.expires_at),
    };
    this.memory.set(key, entry, bytesOf(entry.result));
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
    const { body: _body, format, contentType, extra, ...rest } = result;
    // The extras first, then the main file, then the index row that makes them all visible.
    for (const output of extra ?? []) await this.store.putObject(extraObjectName(key, output.format), output.body, output.contentType);
    await this.store.putObject(key, result.body, contentType);
    const stored: StoredResult = {
      ...rest,
      ...(extra ? { extra: extra.map((e) => ({ format: e.format, contentType: e.contentType, size: e.body.length })) } : {}),
    };
    const row = {
      key,
      account_id: accountId,
      format,
      content_type: contentType,
      size: result.body.length,
      etag,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
      result: JSON.stringify(stored),
    };
    await this.db.kysely
      .insertInto('cache_entries')
      .values(row)
      .onConflict((c) => c.column('key').doUpdateSet({ ...row }))
      .execute();
    const entry: CachedCapture = { result, etag, createdAt: now, expiresAt };
    this.memory.set(key, entry, bytesOf(result));
    return entry;
  }

  async sweep(now = new Date()): Promise<number> {
    this.memory.prune((entry) => entry.expiresAt <= now);
    const expired = await this.db.kysely
      .selectFrom('cache_entries')
      .select(['key', 'result'])
      .where('expires_at', '<=', now.toISOString())
      .limit(1000)
      .execute();
    for (const { key, result } of expired) {
      await this.db.kysely.deleteFrom('cache_entries').where('key', '=', key).where('expires_at', '<=', now.toISOString()).execute();
      await this.store.deleteObject(key).catch(() => undefined);
      for (const { format } of extraFilesOf(result)) await this.store.deleteObject(extraObjectName(key, format)).catch(() => undefined);
    }
    return expired.length;
  }

  close(): void {
    clearInterval(this.timer);
    this.memory.clear();
  }
}
