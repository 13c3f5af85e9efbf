import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { OPERATOR_EMAIL } from '../../src/db/migrations.js';
import { openPostgres } from '../../src/db/postgres.js';
import { openSqlite } from '../../src/db/sqlite.js';
import { postgresUrl } from '../helpers/db.js';

/**
 * Kysely's Migrator on SQLite and Postgres: fresh databases get every migration, databases made by the
 * hand-written runner before it (SQLite `user_version`, Postgres `shutter_migrations`) are adopted in place
 * and get only the rest, and instances starting together on one Postgres schema migrate it once.
 */

const ALL = ['001_api_keys', '002_accounts_usage_sessions', '003_capture_requests', '004_capture_cache', '005_jobs', '006_operator_admin'];

/** What the runner before Kysely's Migrator ran for each version (same SQL on SQLite and Postgres), data aside. */
const LEGACY_DDL: Record<1 | 2, string[]> = {
  1: [
    `create table "api_keys" ("id" text primary key, "name" text not null, "prefix" text not null, "last4" text not null,
      "hash" text not null unique, "created_at" text not null, "last_used_at" text, "revoked_at" text)`,
  ],
  2: [
    `create table "accounts" ("id" text primary key, "email" text not null unique, "password_hash" text, "plan" text not null,
      "created_at" text not null)`,
    `alter table "api_keys" add column "account_id" text references "accounts" ("id")`,
    `create index "api_keys_account" on "api_keys" ("account_id", "revoked_at")`,
    `create table "usage_daily" ("key_id" text not null references "api_keys" ("id"), "account_id" text not null references "accounts" ("id"),
      "day" text not null, "captures" integer not null, constraint "usage_daily_pk" primary key ("key_id", "day"))`,
    `create index "usage_daily_account_day" on "usage_daily" ("account_id", "day")`,
    `create table "quota_usage" ("account_id" text not null references "accounts" ("id"), "period" text not null, "used" integer not null,
      constraint "quota_usage_pk" primary key ("account_id", "period"))`,
    `create table "quota_reservations" ("id" text primary key, "account_id" text not null, "period" text not null, "expires_at" text not null)`,
    `create index "quota_reservations_account" on "quota_reservations" ("account_id", "period")`,
    `create table "sessions" ("id_hash" text primary key, "account_id" text not null references "accounts" ("id"), "csrf" text not null,
      "created_at" text not null, "expires_at" text not null)`,
    `create index "sessions_account" on "sessions" ("account_id")`,
  ],
};

/** The rows a legacy database holds at `version` (v1: an ownerless key; v2: an account, its key, a day of usage). */
function legacyData(version: 1 | 2): string[] {
  if (version === 1) {
    return [
      `INSERT INTO api_keys (id, name, prefix, last4, hash, created_at) VALUES ('old-key', 'legacy', 'le', '6789', 'hash-1', '2024-01-01T00:00:00.000Z')`,
    ];
  }
  return [
    `INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acct-1', 'alice@example.com', NULL, 'pro', '2024-02-01T00:00:00.000Z')`,
    `INSERT INTO api_keys (id, name, prefix, last4, hash, created_at, account_id)
      VALUES ('key-2', 'alice', 'al', '1234', 'hash-2', '2024-02-01T00:00:00.000Z', 'acct-1')`,
    `INSERT INTO usage_daily (key_id, account_id, day, captures) VALUES ('key-2', 'acct-1', '2024-02-02', 7)`,
  ];
}

const legacyStatements = (version: 1 | 2) => [...LEGACY_DDL[1], ...(version === 2 ? LEGACY_DDL[2] : []), ...legacyData(version)];

describe('SQLite', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shutter-migrations-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  let seq = 0;
  /** A path in a directory of its own, which exists (openSqlite would create it; the fixtures need it first). */
  const newFile = () => {
    const sub = join(dir, `db-${++seq}`);
    mkdirSync(sub);
    return join(sub, 'shutter.db');
  };

  /** A file as the runner before Kysely's Migrator left it at `version`. */
  function legacyFile(version: 1 | 2): string {
    const file = newFile();
    const old = new Database(file);
    old.transaction(() => {
      for (const statement of legacyStatements(version)) old.exec(statement);
      old.pragma(`user_version = ${version}`);
    })();
    old.close();
    return file;
  }

  const applied = (sqlite: Database.Database) =>
    sqlite.prepare('SELECT name, timestamp FROM kysely_migration ORDER BY name').all() as Array<{ name: string; timestamp: string }>;

  it('gives a fresh file both migrations, recorded in kysely_migration', async () => {
    const sqlite = await openSqlite(newFile());
    try {
      expect(applied(sqlite).map((r) => r.name)).toEqual(ALL);
      const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(
        expect.arrayContaining([
          'accounts',
          'api_keys',
          'kysely_migration',
          'kysely_migration_lock',
          'quota_usage',
          'sessions',
          'usage_daily',
        ]),
      );
      expect(sqlite.pragma('user_version', { simple: true })).toBe(0);
    } finally {
      sqlite.close();
    }
  });

  it('upgrades a file at legacy user_version 1 in place: the old key goes to the operator, a second open applies nothing', async () => {
    const file = legacyFile(1);
    const first = await openSqlite(file);
    const afterFirst = applied(first);
    expect(afterFirst.map((r) => r.name)).toEqual(ALL);
    const key = first.prepare("SELECT account_id FROM api_keys WHERE id = 'old-key'").get() as { account_id: string };
    const owner = first.prepare('SELECT email, plan, password_hash FROM accounts WHERE id = ?').get(key.account_id);
    expect(owner).toEqual({ email: OPERATOR_EMAIL, plan: 'scale', password_hash: null });
    // 006: the operator's account is an operator, nothing is disabled.
    expect(first.prepare('SELECT role, disabled_at FROM accounts WHERE id = ?').get(key.account_id)).toEqual({
      role: 'operator',
      disabled_at: null,
    });
    first.close();

    const second = await openSqlite(file);
    try {
      expect(applied(second)).toEqual(afterFirst);
      expect(second.prepare('SELECT COUNT(*) FROM accounts').pluck().get()).toBe(1);
      expect(second.prepare("SELECT account_id FROM api_keys WHERE id = 'old-key'").pluck().get()).toBe(key.account_id);
    } finally {
      second.close();
    }
  });

  it('adopts a file at legacy user_version 2 without re-applying anything, keeping its data', async () => {
    const file = legacyFile(2);
    const first = await openSqlite(file);
    const afterFirst = applied(first);
    expect(afterFirst.map((r) => r.name)).toEqual(ALL);
    first.close();

    const second = await openSqlite(file);
    try {
      expect(applied(second)).toEqual(afterFirst);
      expect(second.prepare('SELECT id, email, plan FROM accounts').all()).toEqual([
        { id: 'acct-1', email: 'alice@example.com', plan: 'pro' },
      ]);
      expect(second.prepare('SELECT id, account_id FROM api_keys').all()).toEqual([{ id: 'key-2', account_id: 'acct-1' }]);
      expect(second.prepare('SELECT captures FROM usage_daily').pluck().all()).toEqual([7]);
    } finally {
      second.close();
    }
  });

  it('opens one file twice at once in one process', async () => {
    const file = newFile();
    const both = await Promise.all([openSqlite(file), openSqlite(file)]);
    try {
      expect(applied(both[1]!).map((r) => r.name)).toEqual(ALL);
    } finally {
      for (const sqlite of both) sqlite.close();
    }
  });

  it('names the failed migration and leaves the file as it was', async () => {
    const file = newFile();
    const broken = new Database(file);
    broken.pragma('user_version = 1'); // claims 001 but has no api_keys table
    broken.close();

    await expect(openSqlite(file)).rejects.toThrow(
      /migrating the SQLite database .* failed in migration 002_accounts_usage_sessions: .*api_keys/,
    );
    const after = new Database(file);
    try {
      expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual([]);
    } finally {
      after.close();
    }
  });
});

describe.runIf(postgresUrl)('Postgres', () => {
  let admin: pg.Client;
  const schemas: string[] = [];
  const opened: Db[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    for (const schema of schemas.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  afterAll(async () => {
    await admin?.end();
  });

  const newSchema = () => {
    const schema = `shutter_test_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };

  async function open(schema: string, url = postgresUrl!): Promise<Db> {
    const db = await openPostgres(url, { schema: url === postgresUrl ? schema : undefined });
    opened.push(db);
    return db;
  }

  /** A schema as the runner before Kysely's Migrator left it at `version`, applied at these times. */
  async function legacySchema(version: 1 | 2, appliedAt: string[]): Promise<string> {
    const schema = newSchema();
    await admin.query('BEGIN');
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`SET LOCAL search_path = ${schema}`);
    for (const statement of legacyStatements(version)) await admin.query(statement);
    await admin.query('CREATE TABLE shutter_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)');
    for (let v = 1; v <= version; v++) {
      await admin.query('INSERT INTO shutter_migrations VALUES ($1, $2, $3)', [v, ALL[v - 1], appliedAt[v - 1]]);
    }
    await admin.query('COMMIT');
    return schema;
  }

  async function applied(schema: string): Promise<Array<{ name: string; timestamp: string }>> {
    return (await admin.query(`SELECT name, timestamp FROM ${schema}.kysely_migration ORDER BY name`)).rows;
  }

  /** Kysely's two tables, in `schema` (and not left to whatever schema comes first on the search path). */
  async function kyselyTablesIn(schema: string): Promise<string[]> {
    const { rows } = await admin.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'kysely%' ORDER BY table_name`,
      [schema],
    );
    return rows.map((r: { table_name: string }) => r.table_name);
  }

  it('gives a fresh schema both migrations, with Kysely’s tables in that schema (each schema its own)', async () => {
    const schema = newSchema();
    const db = await open(schema);
    expect((await applied(schema)).map((r) => r.name)).toEqual(ALL);
    expect(await kyselyTablesIn(schema)).toEqual(['kysely_migration', 'kysely_migration_lock']);
    // The app's queries (unqualified, through search_path) see the tables.
    expect(await db.kysely.selectFrom('accounts').selectAll().execute()).toEqual([]);

    // A second schema gets tables of its own, though Kysely's already exist in the first.
    const other = newSchema();
    await open(other);
    expect((await applied(other)).map((r) => r.name)).toEqual(ALL);
    expect(await kyselyTablesIn(other)).toEqual(['kysely_migration', 'kysely_migration_lock']);
  });

  it('migrates the schema the connection is on when no schema is given (search_path in the URL)', async () => {
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(postgresUrl!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    await open(schema, url.toString());
    expect((await applied(schema)).map((r) => r.name)).toEqual(ALL);
    expect(await kyselyTablesIn(schema)).toEqual(['kysely_migration', 'kysely_migration_lock']);
  });

  it('upgrades a schema at legacy version 1 in place: the old key goes to the operator, a second open applies nothing', async () => {
    const schema = await legacySchema(1, ['2024-01-01T00:00:00.000Z']);
    const first = await open(schema);
    const afterFirst = await applied(schema);
    expect(afterFirst).toEqual([
      { name: '001_api_keys', timestamp: '2024-01-01T00:00:00.000Z' }, // adopted from shutter_migrations
      { name: '002_accounts_usage_sessions', timestamp: expect.any(String) },
      { name: '003_capture_requests', timestamp: expect.any(String) },
      { name: '004_capture_cache', timestamp: expect.any(String) },
      { name: '005_jobs', timestamp: expect.any(String) },
      { name: '006_operator_admin', timestamp: expect.any(String) },
    ]);
    const key = await first.kysely.selectFrom('api_keys').select('account_id').where('id', '=', 'old-key').executeTakeFirstOrThrow();
    const owner = await first.kysely.selectFrom('accounts').selectAll().where('id', '=', key.account_id!).executeTakeFirstOrThrow();
    expect(owner).toMatchObject({ email: OPERATOR_EMAIL, plan: 'scale', password_hash: null });
    await first.close();

    await open(schema);
    expect(await applied(schema)).toEqual(afterFirst);
    expect((await admin.query(`SELECT COUNT(*)::int AS n FROM ${schema}.accounts`)).rows[0].n).toBe(1);
  });

  it('adopts a schema at legacy version 2 without re-applying anything, keeping its data', async () => {
    const schema = await legacySchema(2, ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z']);
    await open(schema);
    const afterFirst = await applied(schema);
    expect(afterFirst).toEqual([
      { name: '001_api_keys', timestamp: '2024-01-01T00:00:00.000Z' },
      { name: '002_accounts_usage_sessions', timestamp: '2024-02-01T00:00:00.000Z' },
      { name: '003_capture_requests', timestamp: expect.any(String) },
      { name: '004_capture_cache', timestamp: expect.any(String) },
      { name: '005_jobs', timestamp: expect.any(String) },
      { name: '006_operator_admin', timestamp: expect.any(String) },
    ]);
    const db = await open(schema);
    expect(await applied(schema)).toEqual(afterFirst);
    expect(await db.kysely.selectFrom('accounts').select(['id', 'email', 'plan']).execute()).toEqual([
      { id: 'acct-1', email: 'alice@example.com', plan: 'pro' },
    ]);
    expect(await db.kysely.selectFrom('api_keys').select(['id', 'account_id']).execute()).toEqual([{ id: 'key-2', account_id: 'acct-1' }]);
    expect(await db.kysely.selectFrom('usage_daily').select('captures').execute()).toEqual([{ captures: 7 }]);
  });

  it('migrates a fresh schema once when instances start together', async () => {
    const schema = newSchema();
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => open(schema)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect((await applied(schema)).map((r) => r.name)).toEqual(ALL);
    expect(await kyselyTablesIn(schema)).toEqual(['kysely_migration', 'kysely_migration_lock']);
  });

  it('upgrades a legacy schema once when instances start together', async () => {
    const schema = await legacySchema(1, ['2024-01-01T00:00:00.000Z']);
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => open(schema)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect((await applied(schema)).map((r) => r.name)).toEqual(ALL);
    const operators = await admin.query(`SELECT COUNT(*)::int AS n FROM ${schema}.accounts WHERE email = $1`, [OPERATOR_EMAIL]);
    expect(operators.rows[0].n).toBe(1);
  });
});
