import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Plans } from '../../src/accounts/plans.js';
import { createAccountServices, type AccountServices } from '../../src/accounts/services.js';
import { openDatabase } from '../../src/db/database.js';
import { connectRedis, type RedisHandle } from '../../src/ratelimit/redis.js';

/**
 * The machine's Postgres and Redis, used when reachable (on CI they are). Set
 * SHUTTER_TEST_REQUIRE_SERVICES=1 to fail instead of skipping when they are not.
 */
const PG_CANDIDATES = process.env.SHUTTER_TEST_DATABASE_URL
  ? [process.env.SHUTTER_TEST_DATABASE_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];
const REDIS_URL = process.env.SHUTTER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REQUIRED = process.env.SHUTTER_TEST_REQUIRE_SERVICES === '1';

async function probePostgres(): Promise<string | undefined> {
  for (const url of PG_CANDIDATES) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch {
      // try the next user name
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (REQUIRED) throw new Error(`SHUTTER_TEST_REQUIRE_SERVICES=1 but no Postgres answers at ${PG_CANDIDATES.join(' or ')}`);
  return undefined;
}

async function probeRedis(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return REDIS_URL;
  } catch {
    if (REQUIRED) throw new Error(`SHUTTER_TEST_REQUIRE_SERVICES=1 but no Redis answers at ${REDIS_URL}`);
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** The Postgres URL to test against, or undefined (then Postgres tests are skipped). Probed once per file. */
export const postgresUrl: string | undefined = await probePostgres();
/** The Redis URL to test against, or undefined. */
export const redisUrl: string | undefined = await probeRedis();

/** The database a test runs on: SQLite always, Postgres (alone, and with Redis for limits) when reachable. */
export type Backend = 'sqlite' | 'postgres' | 'postgres+redis';

/** The backends available on this machine, SQLite first. */
export const BACKENDS: Backend[] = [
  'sqlite',
  ...(postgresUrl ? (['postgres'] as const) : []),
  ...(postgresUrl && redisUrl ? (['postgres+redis'] as const) : []),
];

/** A fresh, isolated place on a backend: its own Postgres schema and its own Redis key prefix. */
export interface TestPlace {
  backend: Backend;
  /** Postgres schema (undefined on SQLite). */
  schema: string | undefined;
  /** Redis key prefix (undefined without Redis). */
  redisPrefix: string | undefined;
  /** Services over the place; every call opens new connections (a second "instance"). */
  open(options?: { plans?: Plans; clock?: () => Date; signups?: boolean }): Promise<AccountServices>;
  /** Closes everything opened and drops the schema and Redis keys. */
  cleanup(): Promise<void>;
}

const suffix = () => randomBytes(6).toString('hex');

/** A new isolated test place on `backend`. SQLite places hold one in-memory database shared by every open(). */
export async function testPlace(backend: Backend): Promise<TestPlace> {
  const opened: AccountServices[] = [];
  const schema = backend === 'sqlite' ? undefined : `shutter_test_${suffix()}`;
  const redisPrefix = backend === 'postgres+redis' ? `shutter-test:${suffix()}:` : undefined;
  let sqlite: AccountServices['db'] | undefined;

  return {
    backend,
    schema,
    redisPrefix,
    async open(options = {}) {
      let db: AccountServices['db'];
      if (backend === 'sqlite') {
        // One connection for the place: two better-sqlite3 connections in one process would block each other.
        sqlite ??= await openDatabase({ sqliteFile: ':memory:' });
        const shared = sqlite;
        db = { kysely: shared.kysely, dialect: shared.dialect, close: async () => undefined };
      } else {
        db = await openDatabase({ url: postgresUrl!, sqliteFile: '', schema });
      }
      let redis: RedisHandle | undefined;
      if (redisPrefix) redis = await connectRedis(redisUrl!, redisPrefix);
      const services = createAccountServices({ db, redis, plans: options.plans, clock: options.clock, signups: options.signups });
      opened.push(services);
      return services;
    },
    async cleanup() {
      await Promise.all(opened.map((s) => s.close()));
      await sqlite?.close();
      if (schema) {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
      if (redisPrefix) {
        const client = new Redis(redisUrl!);
        const keys = await client.keys(`${redisPrefix}*`);
        if (keys.length) await client.del(...keys);
        client.disconnect();
      }
    },
  };
}
