import { DEFAULT_MIGRATION_TABLE, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { apiKeys } from './migrations/001-api-keys.js';
import { accountsUsageSessions, OPERATOR_EMAIL } from './migrations/002-accounts-usage-sessions.js';
import { captureRequests } from './migrations/003-capture-requests.js';
import { captureCache } from './migrations/004-capture-cache.js';
import { jobs } from './migrations/005-jobs.js';
import { operatorAdmin } from './migrations/006-operator-admin.js';

export { OPERATOR_EMAIL };

/**
 * Every schema change, one file each under `migrations/`; append only. Kysely's Migrator applies them in
 * name order and records each in `kysely_migration`. The names are the ones the hand-written runner
 * before it used, so the legacy records (SQLite `user_version`, Postgres `shutter_migrations`) map onto them.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '001_api_keys': apiKeys,
  '002_accounts_usage_sessions': accountsUsageSessions,
  '003_capture_requests': captureRequests,
  '004_capture_cache': captureCache,
  '005_jobs': jobs,
  '006_operator_admin': operatorAdmin,
});

/** The migration names in the order they apply (legacy version N is the Nth). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

/** The migrations for Kysely's Migrator, from code (not files: the service runs from `dist/`). */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};

/** One migration the runner before Kysely's Migrator applied: its 1-based version and when. */
export interface LegacyMigration {
  version: number;
  appliedAt: string;
}

interface MigrationTables {
  kysely_migration: { name: string; timestamp: string };
}

/**
 * Adopts the record of the runner before Kysely's Migrator: when the database has `legacy` migrations but
 * `kysely_migration` is empty (or missing), creates that table and records them there as executed, so the
 * Migrator applies only the rest. Does nothing once `kysely_migration` has rows. Returns the names it recorded.
 */
export async function adoptLegacyMigrations(
  db: Kysely<unknown>,
  legacy: readonly LegacyMigration[],
  schema: string | undefined,
): Promise<string[]> {
  if (legacy.length === 0) return [];
  const rows = legacy.map(({ version, appliedAt }) => {
    const name = MIGRATION_NAMES[version - 1];
    if (!name) throw new Error(`the database records migration version ${version}, which this build of Shutter does not have`);
    return { name, timestamp: appliedAt };
  });
  const typed = db as unknown as Kysely<MigrationTables>;
  // The same table Kysely's Migrator creates (it leaves an existing one alone).
  await (schema ? typed.schema.withSchema(schema) : typed.schema)
    .createTable(DEFAULT_MIGRATION_TABLE)
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
    .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
    .execute();
  const table = schema ? typed.withSchema(schema) : typed;
  const recorded = await table.selectFrom('kysely_migration').select('name').limit(1).execute();
  if (recorded.length > 0) return [];
  await table.insertInto('kysely_migration').values(rows).execute();
  return rows.map((r) => r.name);
}

/** A clear error for a failed `migrateToLatest`, naming the migration that failed, with the cause attached. */
export function migrationError(where: string, result: MigrationResultSet): Error {
  const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
  const cause = result.error;
  const message = cause instanceof Error ? cause.message : String(cause);
  return new Error(`migrating ${where} failed${failed ? ` in migration ${failed}` : ''}: ${message}`, { cause });
}
