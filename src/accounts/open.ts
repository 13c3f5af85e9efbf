import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { openDatabase } from '../db/database.js';
import { loadPlans } from './plans.js';
import { createAccountServices, type AccountServices } from './services.js';

/**
 * The account services the SHUTTER_* settings describe: SQLite in the data dir or Postgres, and
 * Redis for limits when set. The CLI passes `{ redis: false }`: it never counts requests.
 */
export async function openAccountServices(config: Config, options: { redis?: boolean } = {}): Promise<AccountServices> {
  const plans = loadPlans(config.SHUTTER_PLANS_FILE);
  const db = await openDatabase({ url: config.SHUTTER_DATABASE_URL, sqliteFile: join(config.SHUTTER_DATA_DIR, 'shutter.db') });
  try {
    const redis =
      options.redis !== false && config.SHUTTER_REDIS_URL
        ? // Loaded only when configured: ioredis costs start-up time on every other install.
          await (await import('../ratelimit/redis.js')).connectRedis(config.SHUTTER_REDIS_URL, config.SHUTTER_REDIS_PREFIX)
        : undefined;
    return createAccountServices({ db, plans, redis, signups: config.SHUTTER_SIGNUPS });
  } catch (error) {
    await db.close();
    throw error;
  }
}
