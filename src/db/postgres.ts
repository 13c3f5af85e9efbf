import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Db } from './database.js';
import { compileMigration, MIGRATIONS } from './migrations.js';
import type { Tables } from './tables.js';

/** Any fixed number: instances starting together take turns migrating. */
const MIGRATION_LOCK = 7_470_181;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Opens a Postgres pool (optionally inside its own schema) and applies pending migrations. */
export async function openPostgres(url: string, options: { schema?: string | undefined } = {}): Promise<Db> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid Postgres schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
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
    await migrate(kysely, schema);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

async function migrate(kysely: Kysely<Tables>, schema: string | undefined): Promise<void> {
  await kysely.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    // Under the lock: CREATE SCHEMA IF NOT EXISTS is not safe against itself running concurrently.
    if (schema) await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS shutter_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`.execute(
      trx,
    );
    const done = await sql<{ n: number }>`SELECT CAST(COUNT(*) AS integer) AS n FROM shutter_migrations`.execute(trx);
    const version = done.rows[0]?.n ?? 0;
    const untyped = trx as unknown as Kysely<unknown>;
    for (let v = version; v < MIGRATIONS.length; v++) {
      const migration = MIGRATIONS[v]!;
      for (const query of compileMigration(migration, untyped)) await trx.executeQuery(query);
      await sql`INSERT INTO shutter_migrations (version, name, applied_at) VALUES (${v + 1}, ${migration.name}, ${new Date().toISOString()})`.execute(
        trx,
      );
    }
  });
}
