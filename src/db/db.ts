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
