import type { Kysely, Migration } from 'kysely';

/** Recent captures per account (the dashboard's Requests page) and their debug bundles (debug=1). */
export const captureRequests: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('capture_requests')
      .addColumn('request_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('bundle', 'text')
      .addColumn('bundle_expires_at', 'text')
      .execute();
    await db.schema.createIndex('capture_requests_account').on('capture_requests').columns(['account_id', 'created_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('capture_requests').execute();
  },
};
