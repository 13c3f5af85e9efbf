import type { Kysely, Migration } from 'kysely';

/** The shared capture cache's index (the files are in the store) and cache hits per key per day. */
export const captureCache: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('cache_entries')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('etag', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('result', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('cache_entries_expires').on('cache_entries').column('expires_at').execute();
    await db.schema
      .alterTable('usage_daily')
      .addColumn('cache_hits', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('cache_entries').execute();
  },
};
