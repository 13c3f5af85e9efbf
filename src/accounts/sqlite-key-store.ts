import type Database from 'better-sqlite3';
import { sqliteDb } from '../db/sqlite.js';
import { KyselyKeyStore } from './kysely-key-store.js';

/** The key store over an open SQLite file (see `openSqlite`); closing the store closes the file. */
export class SqliteKeyStore extends KyselyKeyStore {
  constructor(sqlite: Database.Database) {
    super(sqliteDb(sqlite));
  }
}
