import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Db } from './db.js';
import { adoptLegacyMigrations, migrationError, migrationProvider, type LegacyMigration } from './migrations.js';
import type { Tables } from './tables.js';

/**
 * Opens of one file in this process, so they take turns: a second connection's BEGIN IMMEDIATE would wait
 * synchronously (busy_timeout) for the first, which could not finish its migrations meanwhile.
 */
const opening = new Map<string, Promise<unknown>>();

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations with Kysely's Migrator
 * (recorded in `kysely_migration`). A file from before the Migrator (its count in `user_version`) is adopted in place.
 */
export async function openSqlite(file: string): Promise<Database.Database> {
  if (file === ':memory:') return openNow(file);
  const key = resolve(file);
  const current = (opening.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => openNow(file));
  opening.set(key, current);
  try {
    return await current;
  } finally {
    if (opening.get(key) === current) opening.delete(key);
  }
}

async function openNow(file: string): Promise<Database.Database> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = WAL');
    // What better-sqlite3 builds in for WAL databases (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1), but a file
    // switched to WAL just now would stay on FULL until reopened: a sync of the log on every commit,
    // on the event loop. NORMAL syncs at checkpoints; a crash of the process loses nothing, a power cut the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    await migrate(sqlite, file);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}

async function migrate(sqlite: Database.Database, file: string): Promise<void> {
  // Not destroyed afterwards: that would close the file the caller gets.
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  // Kysely runs SQLite migrations outside a transaction; one IMMEDIATE transaction around the adoption and
  // every migration makes them all-or-nothing, and makes a second process opening the file wait its turn.
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const version = sqlite.pragma('user_version', { simple: true }) as number;
    const appliedAt = new Date().toISOString();
    const legacy: LegacyMigration[] = Array.from({ length: version }, (_, i) => ({ version: i + 1, appliedAt }));
    await adoptLegacyMigrations(db, legacy, undefined);
    const result = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
    if ('error' in result) throw migrationError(`the SQLite database ${file}`, result);
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}

/** Statements kept prepared per database; more distinct SQL texts than this evict the oldest. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The database as Kysely's SQLite driver sees it, with each SQL text prepared once: the driver
 * prepares every query anew, which is most of a short query's cost. Kysely's one connection runs one
 * query at a time, so a statement is never in use twice; one still busy (an unfinished stream) is not reused.
 */
export function preparedOnce(sqlite: Database.Database): Pick<Database.Database, 'prepare' | 'close'> {
  const statements = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (cached) return statement;
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      return sqlite.close();
    },
  } as Pick<Database.Database, 'prepare' | 'close'>;
}

/** The query layer over an open SQLite database; closing it closes the file. */
export function sqliteDb(sqlite: Database.Database): Db {
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: preparedOnce(sqlite) }) });
  return {
    kysely,
    dialect: 'sqlite',
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
}
