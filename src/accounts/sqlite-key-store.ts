import type Database from 'better-sqlite3';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { generateApiKey, hashApiKey, hasValidChecksum, KEY_PREFIX } from './api-key.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

interface Row {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  last4: r.last4,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** API keys in the SQLite file; only SHA-256 hashes of the secrets are stored. */
export class SqliteKeyStore implements KeyStore {
  constructor(private readonly db: Database.Database) {}

  async findActive(key: string): Promise<ApiKeyRecord | null> {
    if (!hasValidChecksum(key)) return null;
    const hash = hashApiKey(key);
    const row = this.db.prepare('SELECT * FROM api_keys WHERE hash = ?').get(hash) as Row | undefined;
    // The index look-up already matched; the constant-time comparison keeps the final check free of timing leaks.
    if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) || row.revoked_at) return null;
    return toRecord(row);
  }

  async create(input: { name: string; key?: string }): Promise<{ record: ApiKeyRecord; key: string }> {
    const key = input.key ?? generateApiKey();
    const row: Row = {
      id: randomUUID(),
      name: input.name,
      // shk_ + 4 of 32 random characters is safe to show; of an operator's own secret, show less.
      prefix: key.startsWith(KEY_PREFIX) ? key.slice(0, 8) : key.slice(0, 2),
      last4: key.slice(-4),
      hash: hashApiKey(key),
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    this.db
      .prepare(
        `INSERT INTO api_keys (id, name, prefix, last4, hash, created_at, last_used_at, revoked_at)
         VALUES (@id, @name, @prefix, @last4, @hash, @created_at, @last_used_at, @revoked_at)`,
      )
      .run(row);
    return { record: toRecord(row), key };
  }

  async ensure(input: { name: string; key: string }): Promise<ApiKeyRecord> {
    const row = this.db.prepare('SELECT * FROM api_keys WHERE hash = ?').get(hashApiKey(input.key)) as Row | undefined;
    if (row) return toRecord(row);
    return (await this.create(input)).record;
  }

  async revoke(id: string): Promise<boolean> {
    const result = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
      .run(new Date().toISOString(), id);
    return result.changes > 0;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (this.db.prepare('SELECT * FROM api_keys ORDER BY created_at').all() as Row[]).map(toRecord);
  }

  async countActive(): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as { n: number }).n;
  }

  touch(id: string): void {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(new Date().toISOString(), id);
  }

  close(): void {
    this.db.close();
  }
}
