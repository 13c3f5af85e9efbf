import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coalescer } from '../../src/cache/coalescer.js';
import { redisUrl } from '../helpers/db.js';

/**
 * The cross-node coalescer on the machine's Redis, with the interleaving that made
 * cache-nodes.test.ts render twice now and then: the waiter looks for the result (none yet), the
 * leader on the other node stores it and lets go of its lock, and the waiter then finds no lock.
 */
describe.runIf(redisUrl)('Coalescer across nodes (Redis)', () => {
  let client: Redis;
  const prefix = `test:coalescer:${randomBytes(6).toString('hex')}:`;

  beforeAll(() => {
    client = new Redis(redisUrl!, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  });

  it('a waiter that sees the lock go after the leader stored its result takes that result, not a second render', async () => {
    const key = 'same-request';
    const lock = `${prefix}coalesce:lock:${key}`;
    // The other node leads: it holds the lock while it renders.
    await client.set(lock, '1', 'PX', 10_000);
    let stored: string | null = null;
    let looks = 0;
    const find = async () => {
      looks++;
      if (looks === 1) {
        // Right after this look found nothing, the leader stores its result and releases its lock.
        stored = 'the leader result';
        await client.del(lock);
        return null;
      }
      return stored;
    };
    let renders = 0;
    const waiter = new Coalescer({ client, prefix });
    const outcome = await waiter.run(
      key,
      async () => {
        renders++;
        return 'a second render';
      },
      find,
      5_000,
    );
    expect(outcome).toEqual({ value: 'the leader result', led: false });
    expect(renders).toBe(0);
    expect(await client.exists(lock)).toBe(0);
  });

  it('with no result anywhere, the node that takes the lock renders once and releases it', async () => {
    const waiter = new Coalescer({ client, prefix });
    let renders = 0;
    const outcome = await waiter.run(
      'fresh',
      async () => {
        renders++;
        return 'rendered';
      },
      async () => null,
      5_000,
    );
    expect(outcome).toEqual({ value: 'rendered', led: true });
    expect(renders).toBe(1);
    expect(await client.exists(`${prefix}coalesce:lock:fresh`)).toBe(0);
  });
});
