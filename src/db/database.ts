import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/** Which SQL the database speaks; the few queries that differ (row locks) ask this. */
export type SqlDialect = 'sqlite' | 'postgres';

/** The one query layer over SQLite or Postgres. */
export interface Db {
  readonly kysely: Kysely<Tables>;
  readonly dialect: SqlDialect;
  /** Closes the connection(s); safe to call twice. */
  close(): Promise<void>;
}

/** Where the accounts database lives: a Postgres URL, else the SQLite file. */
export interface DatabaseLocation {
  /** `postgres://…`; when unset, `sqliteFile` is used. */
  url?: string | undefined;
  sqliteFile: string;
  /** Postgres schema to create and use (tests isolate themselves with one each). */
  schema?: string | undefined;
}

/** Opens and migrates the database the location names. */
export async function openDatabase(location: DatabaseLocation): Promise<Db> {
  if (location.url) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(location.url, { schema: location.schema });
  }
  const { openSqlite, sqliteDb } = await import('./sqlite.js');
  return sqliteDb(await openSqlite(location.sqliteFile));
}
