import { Redis } from 'ioredis';

/** A Redis connection and the prefix every key of this deployment starts with. */
export interface RedisHandle {
  client: Redis;
  prefix: string;
  close(): Promise<void>;
}

/**
 * Connects and checks the server answers, so a wrong SHUTTER_REDIS_URL stops the start instead of
 * failing requests later. Commands give up quickly when Redis is away: limits are checked on the
 * request path and a hung limiter would hang every caller.
 */
export async function connectRedis(url: string, prefix: string): Promise<RedisHandle> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    commandTimeout: 5_000,
    maxRetriesPerRequest: 1,
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(`cannot reach Redis at SHUTTER_REDIS_URL: ${(error as Error).message}`, { cause: error });
  }
  let closed = false;
  return {
    client,
    prefix,
    async close() {
      if (closed) return;
      closed = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
