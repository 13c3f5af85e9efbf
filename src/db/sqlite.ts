import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from './database.js';
import { compileMigration, MIGRATIONS } from './migrations.js';
import type { Tables } from './tables.js';

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations in order.
 * Synchronous, so callers can build a store in one expression; the version lives in `user_version`.
 */
export function openSqlite(file: string): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Kysely here only compiles the migrations' statements; better-sqlite3 runs them synchronously.
  const compiler = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const version = sqlite.pragma('user_version', { simple: true }) as number;
  const apply = sqlite.transaction(() => {
    for (let v = version; v < MIGRATIONS.length; v++) {
      for (const query of compileMigration(MIGRATIONS[v]!, compiler)) {
        sqlite.prepare(query.sql).run(...(query.parameters as unknown[]));
      }
    }
    sqlite.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  apply();
  return sqlite;
}

/** The query layer over an open SQLite database; closing it closes the file. */
export function sqliteDb(sqlite: Database.Database): Db {
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    kysely,
    dialect: 'sqlite',
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
}
