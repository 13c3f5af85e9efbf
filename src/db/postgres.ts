import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Db } from './db.js';
import { adoptLegacyMigrations, migrationError, migrationProvider, type LegacyMigration } from './migrations.js';
import type { Tables } from './tables.js';

/** Any fixed number: instances starting together take turns creating the schema and adopting the legacy record. */
const MIGRATION_LOCK = 7_470_181;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Where the runner before Kysely's Migrator recorded its migrations (one row per version). */
const LEGACY_TABLE = 'shutter_migrations';

/** Opens a Postgres pool (optionally inside its own schema) and applies pending migrations. */
export async function openPostgres(url: string, options: { schema?: string | undefined } = {}): Promise<Db> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid Postgres schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A server that does not answer at all (a dropped route) fails the request as 503 backend_unavailable
    // instead of hanging it. The wait for a free pooled client counts too: at 5 s, a busy pool under load
    // answered 503s to captures that would have gone through (quota-instances.test.ts in a loaded CI run).
    connectionTimeoutMillis: 15_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client whose server went away (a restart, a failover) emits 'error' on the pool; unheard,
  // that would end the process. The pool drops the client and the next query connects afresh.
  pool.on('error', (error) => {
    process.emitWarning(`Postgres connection lost: ${error.message}`, { code: 'SHUTTER_POSTGRES' });
  });
  // A client checked out when its server goes away emits 'error' on itself, which the pool does not
  // hear: unheard, it ended the process (backend-outage.test.ts, about one run in two). Its query fails
  // on its own (503 backend_unavailable) and the pool drops it on release; here it is only heard.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const kysely = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  const db: Db = {
    kysely,
    dialect: 'postgres',
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
  try {
    await migrate(kysely as unknown as Kysely<unknown>, schema);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * Creates the schema, adopts the legacy `shutter_migrations` record and runs Kysely's Migrator, all while
 * holding a session advisory lock on one connection, so instances starting together go one at a time
 * (the Migrator itself locks the migrations too). Kysely's tables live in the schema the app's tables do.
 */
async function migrate(db: Kysely<unknown>, schema: string | undefined): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      const tableSchema = await conn.transaction().execute(async (trx) => {
        // CREATE SCHEMA IF NOT EXISTS is not safe against itself running concurrently: hence the lock.
        if (schema) await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(trx);
        const current = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(trx);
        const where = schema ?? current.rows[0]?.schema ?? undefined;
        if (where) await adoptLegacyMigrations(trx, await legacyMigrations(trx, where), where);
        return where;
      });
      const run = () =>
        new Migrator({
          db,
          provider: migrationProvider,
          ...(tableSchema ? { migrationTableSchema: tableSchema } : {}),
        }).migrateToLatest();
      let result = await run();
      // Kysely's Migrator looks for its tables across every schema of the database; a schema another
      // client drops meanwhile (3F000) fails that lookup, not our migration: look again.
      for (let tries = 0; tries < 5 && 'error' in result && droppedElsewhere(result.error, tableSchema); tries++) result = await run();
      if ('error' in result) throw migrationError(`the Postgres database${schema ? ` (schema ${schema})` : ''}`, result);
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

/** A "schema … does not exist" error about a schema other than ours. */
function droppedElsewhere(error: unknown, ours: string | undefined): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  return code === '3F000' && !(ours !== undefined && message.includes(`"${ours}"`));
}

/** The versions the runner before Kysely's Migrator applied in `schema` (none when it never ran there). */
async function legacyMigrations(db: Kysely<unknown>, schema: string): Promise<LegacyMigration[]> {
  const exists = await sql<{ found: boolean }>`SELECT EXISTS (
      SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = ${schema} AND tablename = ${LEGACY_TABLE}) AS found`.execute(db);
  if (!exists.rows[0]?.found) return [];
  const rows = await sql<LegacyMigration>`SELECT version, applied_at AS "appliedAt"
      FROM ${sql.table(`${schema}.${LEGACY_TABLE}`)} ORDER BY version`.execute(db);
  return rows.rows;
}
