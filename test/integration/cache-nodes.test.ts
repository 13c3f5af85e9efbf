import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, Plans } from '../../src/accounts/plans.js';
import type { AccountServices } from '../../src/accounts/services.js';
import { loadConfig } from '../../src/config/load.js';
import { createService } from '../../src/service.js';
import { S3Store } from '../../src/storage/s3-store.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';
import { StubEngine } from '../helpers/stub-engine.js';

/**
 * Two instances sharing one cache (issue 17): Postgres for the index, Redis for coalescing, an S3
 * server (s3rver) for the files. A miss on one node is a hit on the other, and 20 identical requests
 * spread over both render once and are charged once.
 */
const PLANS = new Plans([
  ...DEFAULT_PLANS,
  { name: 'wide', maxKeys: 5, monthlyQuota: 1000, ratePerMinute: 100_000, concurrency: 1000, maxQueuedJobs: 100 },
]);

describe.runIf(BACKENDS.includes('postgres+redis'))('a cache shared by two instances on postgres+redis and S3', () => {
  let place: TestPlace;
  let s3: S3rver;
  let dir: string;
  const nodes: Array<{ app: FastifyInstance; services: AccountServices; engine: StubEngine; close(): Promise<void> }> = [];
  let key = '';
  let accountId = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shutter-cache-s3-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'shots', configs: [] }] });
    const { port } = (await s3.run()) as AddressInfo;
    place = await testPlace('postgres+redis');
    for (let i = 0; i < 2; i++) {
      const services = await place.open({ plans: PLANS });
      const engine = new StubEngine({ delayMs: 300 });
      const store = new S3Store({
        bucket: 'shots',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        prefix: 'shutter/',
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        ttlSeconds: 600,
      });
      const service = await createService(loadConfig({ SHUTTER_SIGNING_SECRET: 'shared-signing-secret-for-both-nodes-0123' }), {
        engine,
        accounts: services,
        store,
        logger: pino({ level: 'silent' }),
      });
      await service.app.ready();
      nodes.push({ app: service.app, services, engine, close: async () => (await service.close(), await store.close()) });
    }
    const created = await nodes[0]!.services.accounts.create({ email: 'cache@example.com', plan: 'wide' });
    if (!created.ok) throw new Error(created.message);
    accountId = created.value.id;
    const issued = await nodes[0]!.services.keyManager.issue(created.value, 'main');
    if (!issued.ok) throw new Error(issued.message);
    key = issued.value.key;
  });

  afterAll(async () => {
    for (const node of nodes) await node.close();
    await place?.cleanup();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const take = (node: number, url: string) =>
    nodes[node]!.app.inject({ method: 'GET', url: `/v1/take?cache=1&url=${encodeURIComponent(url)}`, headers: { apikey: key } });
  const renders = () => nodes.reduce((n, node) => n + node.engine.calls.length, 0);
  const used = async () =>
    await nodes[0]!.services.limits.quota.used(accountId, (await import('../../src/usage/period.js')).periodOf(new Date()));

  it('a miss on one node is a hit on the other, with the same bytes', async () => {
    const miss = await take(0, 'https://example.com/a');
    expect(miss.headers['x-shutter-cache']).toBe('MISS');
    const hit = await take(1, 'https://example.com/a');
    expect(hit.headers['x-shutter-cache']).toBe('HIT');
    expect(hit.rawPayload.equals(miss.rawPayload)).toBe(true);
    expect(nodes[1]!.engine.calls).toHaveLength(0);
  });

  it('20 identical concurrent requests over both nodes: 1 render, 1 charge, 20 identical bodies', async () => {
    const rendersBefore = renders();
    const usedBefore = await used();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => take(i % 2, 'https://example.com/b')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    expect(renders() - rendersBefore).toBe(1);
    expect((await used()) - usedBefore).toBe(1);
    expect(new Set(answers.map((a) => a.rawPayload.toString('base64'))).size).toBe(1);
    expect(answers.filter((a) => a.headers['x-shutter-cache'] === 'MISS')).toHaveLength(1);
  });
});
