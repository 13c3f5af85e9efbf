import type { Db } from './db.js';

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
