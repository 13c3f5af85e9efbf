import { sql, type Kysely, type Migration } from 'kysely';
import { OPERATOR_EMAIL } from './002-accounts-usage-sessions.js';

/**
 * Operator admin in the dashboard: an account's role (`user`, or `operator`, who may open
 * /dashboard/admin), when it was disabled (its keys and sessions stop working), and the audit log
 * of what operators did to accounts.
 */
export const operatorAdmin: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('accounts')
      .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
      .execute();
    await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
    // The operator's own account is an operator (it logs in once given a password: accounts set-password).
    await sql`UPDATE accounts SET role = 'operator' WHERE email = ${OPERATOR_EMAIL}`.execute(db);
    await db.schema
      .createTable('admin_audit')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // Null when the change came from the command line (no account acts there).
      .addColumn('actor_account_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_account_id', 'text')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('admin_audit_created').on('admin_audit').column('created_at').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('admin_audit').execute();
    await db.schema.alterTable('accounts').dropColumn('disabled_at').execute();
    await db.schema.alterTable('accounts').dropColumn('role').execute();
  },
};
