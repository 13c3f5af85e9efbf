import type { Kysely, Migration } from 'kysely';

/** Async capture jobs, the embedded queue's tasks, and Idempotency-Key answers (DESIGN.md §4.3). */
export const jobs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('params', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('external_id', 'text')
      .addColumn('webhook_url', 'text')
      .addColumn('base_url', 'text')
      .addColumn('lane', 'integer', (c) => c.notNull())
      .addColumn('reservation', 'text')
      .addColumn('run_token', 'text')
      .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('webhook_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('webhook_last_status', 'integer')
      .addColumn('webhook_last_error', 'text')
      .addColumn('webhook_delivered_at', 'text')
      .addColumn('webhook_next_at', 'text')
      .execute();
    await db.schema.createIndex('jobs_account_created').on('jobs').columns(['account_id', 'created_at']).execute();
    await db.schema.createIndex('jobs_account_status').on('jobs').columns(['account_id', 'status']).execute();
    await db.schema
      .createTable('queue_tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('lane', 'integer', (c) => c.notNull())
      .addColumn('seq', 'text', (c) => c.notNull())
      .addColumn('run_at', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text')
      .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('queue_tasks_order').on('queue_tasks').columns(['lane', 'seq']).execute();
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('answer', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('idempotency_keys').execute();
    await db.schema.dropTable('queue_tasks').execute();
    await db.schema.dropTable('jobs').execute();
  },
};
