import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/** The account that owns keys made without one (CLI without --email, the bootstrap key, keys from before accounts). */
export const OPERATOR_EMAIL = 'operator@localhost';

/** Accounts (keys now belong to one), daily usage, quota counters and reservations, dashboard sessions. */
export const accountsUsageSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Nullable because SQLite cannot add a NOT NULL column to a table with rows; the code always sets it.
    await db.schema
      .alterTable('api_keys')
      .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'revoked_at']).execute();
    // Keys made before accounts existed were the operator's: give them to the operator account (plan scale).
    await sql`INSERT INTO accounts (id, email, password_hash, plan, created_at)
        SELECT ${randomUUID()}, ${OPERATOR_EMAIL}, NULL, 'scale', ${new Date().toISOString()}
        WHERE EXISTS (SELECT 1 FROM api_keys WHERE account_id IS NULL)`.execute(db);
    await sql`UPDATE api_keys SET account_id = (SELECT id FROM accounts WHERE email = ${OPERATOR_EMAIL})
        WHERE account_id IS NULL`.execute(db);
    await db.schema
      .createTable('usage_daily')
      .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('captures', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_daily_pk', ['key_id', 'day'])
      .execute();
    await db.schema.createIndex('usage_daily_account_day').on('usage_daily').columns(['account_id', 'day']).execute();
    await db.schema
      .createTable('quota_usage')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('quota_usage_pk', ['account_id', 'period'])
      .execute();
    await db.schema
      .createTable('quota_reservations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('quota_reservations_account').on('quota_reservations').columns(['account_id', 'period']).execute();
    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('csrf', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  },
};
