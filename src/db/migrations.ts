import { randomUUID } from 'node:crypto';
import { sql, type CompiledQuery, type Compilable, type Kysely, type RawBuilder } from 'kysely';

/** The account that owns keys made without one (CLI without --email, the bootstrap key, keys from before accounts). */
export const OPERATOR_EMAIL = 'operator@localhost';

/** One schema change as dialect-neutral statements, compiled for SQLite or Postgres by the runner. */
export interface Migration {
  name: string;
  statements(db: Kysely<unknown>): Array<Compilable | RawBuilder<unknown>>;
}

/** The SQL of every statement of a migration, for the dialect `db` was made with. */
export function compileMigration(migration: Migration, db: Kysely<unknown>): CompiledQuery[] {
  return migration.statements(db).map((s) => ('isRawBuilder' in s ? s.compile(db) : s.compile()));
}

/**
 * Every schema change, in order; append only. SQLite files record the count in `user_version`
 * (version 1 is the key table the service shipped with), Postgres in `shutter_migrations`.
 */
export const MIGRATIONS: Migration[] = [
  {
    name: '001_api_keys',
    statements: (db) => [
      db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('last4', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text'),
    ],
  },
  {
    name: '002_accounts_usage_sessions',
    statements: (db) => [
      db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull()),
      // Nullable because SQLite cannot add a NOT NULL column to a table with rows; the code always sets it.
      db.schema.alterTable('api_keys').addColumn('account_id', 'text', (c) => c.references('accounts.id')),
      db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'revoked_at']),
      // Keys made before accounts existed were the operator's: give them to the operator account (plan scale).
      sql`INSERT INTO accounts (id, email, password_hash, plan, created_at)
          SELECT ${randomUUID()}, ${OPERATOR_EMAIL}, NULL, 'scale', ${new Date().toISOString()}
          WHERE EXISTS (SELECT 1 FROM api_keys WHERE account_id IS NULL)`,
      sql`UPDATE api_keys SET account_id = (SELECT id FROM accounts WHERE email = ${OPERATOR_EMAIL})
          WHERE account_id IS NULL`,
      db.schema
        .createTable('usage_daily')
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('captures', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_daily_pk', ['key_id', 'day']),
      db.schema.createIndex('usage_daily_account_day').on('usage_daily').columns(['account_id', 'day']),
      db.schema
        .createTable('quota_usage')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_usage_pk', ['account_id', 'period']),
      db.schema
        .createTable('quota_reservations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull()),
      db.schema.createIndex('quota_reservations_account').on('quota_reservations').columns(['account_id', 'period']),
      db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('csrf', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull()),
      db.schema.createIndex('sessions_account').on('sessions').column('account_id'),
    ],
  },
];
