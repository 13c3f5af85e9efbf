import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CaptureCache, etagOf } from '../../src/cache/capture-cache.js';
import type { CaptureResult } from '../../src/capture/engine.js';
import { AppError } from '../../src/errors/app-error.js';
import { LocalStore } from '../../src/storage/local-store.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { buildTestApp, TEST_SIGNING_SECRET, type TestApp } from '../helpers/stub-engine.js';
import { createHmac } from 'node:crypto';

/**
 * The shared capture cache on the HTTP layer (issue 17, DESIGN.md §4.2) with the stub engine, which
 * counts renders: identity, HIT/MISS, Age, Cache-Control, ETag and 304, hits not charged, and
 * coalescing of identical requests in flight. The same on Postgres + Redis + S3 across two
 * instances is in test/e2e/cache-nodes.test.ts.
 */
let dir: string;
let store: LocalStore;
let t: TestApp;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-cache-'));
  store = new LocalStore({ dir, signer: new UrlSigner(Buffer.from('x'.repeat(32))), ttlSeconds: 3600, logger: pino({ level: 'silent' }) });
  t = await buildTestApp({ store, plan: 'scale' });
});
afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/v1/take?${new URLSearchParams(query)}`, headers: { apikey: t.key, ...headers } });
const used = async () =>
  ((await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } })).json() as { usage: { used: number } }).usage.used;
const BASE = { url: 'https://example.com/', cache: '1' };

describe('cache=1', () => {
  it('renders once: MISS (charged), then HIT (not charged) with the same bytes, Age, Cache-Control and ETag', async () => {
    const before = await used();
    const miss = await get({ ...BASE, cache_ttl: '3600' });
    expect(miss.statusCode).toBe(200);
    expect(miss.headers['x-shutter-cache']).toBe('MISS');
    expect(miss.headers['cache-control']).toMatch(/^public, max-age=(3600|3599)$/);
    expect(await used()).toBe(before + 1);
    const hit = await get({ ...BASE, cache_ttl: '3600' });
    expect(hit.headers['x-shutter-cache']).toBe('HIT');
    expect(hit.rawPayload.equals(miss.rawPayload)).toBe(true);
    expect(hit.headers.etag).toBe(miss.headers.etag);
    expect(Number(hit.headers.age)).toBeGreaterThanOrEqual(0);
    expect(t.engine.calls).toHaveLength(1);
    expect(await used()).toBe(before + 1);
  });

  it('If-None-Match with the ETag → 304 without a body', async () => {
    const first = await get(BASE);
    const again = await get(BASE, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('every output-affecting option misses; cache_ttl, timeout, response_type, the credentials and the signature do not', async () => {
    await get(BASE);
    const misses: Array<Record<string, string>> = [
      { format: 'jpg' },
      { viewport_width: '1000' },
      { full_page: '1' },
      { quality: '50', format: 'jpg' },
      { dark_mode: '1' },
      { hide_selectors: '.ad' },
      { cache_key: 'v2' },
      { url: 'https://example.com/other' },
      { block_ads: '1' },
      { wait_until: 'networkidle0' },
    ];
    for (const change of misses) {
      const res = await get({ ...BASE, ...change });
      expect(res.headers['x-shutter-cache'], JSON.stringify(change)).toBe('MISS');
    }
    const hits: Array<Record<string, string>> = [{ cache_ttl: '120' }, { timeout: '30' }, { response_type: 'json' }, { apikey: t.key }];
    for (const change of hits) {
      const res = await get({ ...BASE, ...change });
      expect(res.statusCode, JSON.stringify(change)).toBe(200);
      expect(res.headers['x-shutter-cache'] ?? res.json().cache, JSON.stringify(change)).toMatch(/^hit$/i);
    }
    // A signed link of the same options hits too.
    const secret = createHmac('sha256', TEST_SIGNING_SECRET).update(`key:${t.record.id}`).digest('hex');
    const query = `url=https%3A%2F%2Fexample.com%2F&cache=1&expires=${Math.floor(Date.now() / 1000) + 60}&access_key=${t.record.id}`;
    const signed = await t.app.inject({
      method: 'GET',
      url: `/v1/take?${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`,
    });
    expect(signed.headers['x-shutter-cache']).toBe('HIT');
    expect(t.engine.calls).toHaveLength(1 + misses.length);
  });

  it('another account never hits this account’s entry', async () => {
    await get(BASE);
    const account = await t.accounts.accounts.create({ email: 'other@example.test', plan: 'scale' });
    if (!account.ok) throw new Error(account.message);
    const { key } = await t.keys.create({ name: 'other', accountId: account.value.id });
    const other = await get(BASE, { apikey: key });
    expect(other.headers['x-shutter-cache']).toBe('MISS');
  });

  it('20 identical concurrent requests: 1 render, 1 charge, 20 identical bodies', async () => {
    t.engine.delayMs = 300;
    const before = await used();
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(BASE)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    expect(t.engine.calls).toHaveLength(1);
    expect(await used()).toBe(before + 1);
    expect(new Set(answers.map((a) => a.rawPayload.toString('base64'))).size).toBe(1);
    expect(answers.filter((a) => a.headers['x-shutter-cache'] === 'MISS')).toHaveLength(1);
  });

  it('a failure is shared by the waiters as the same error, and not cached', async () => {
    t.engine.delayMs = 200;
    t.engine.error = new AppError('navigation_failed', 'the page could not be loaded (ERR_NAME_NOT_RESOLVED)');
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(BASE)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(422));
    expect(new Set(answers.map((a) => a.json().error.message)).size).toBe(1);
    expect(t.engine.calls).toHaveLength(1);
    t.engine.error = undefined;
    const after = await get(BASE);
    expect(after.statusCode).toBe(200);
    expect(after.headers['x-shutter-cache']).toBe('MISS');
  });

  it('cache hits are counted per day apart from captures (the dashboard shows both)', async () => {
    await get(BASE);
    await get(BASE);
    await get(BASE);
    const days = await t.accounts.usage.perDay(t.account.id, '2000-01-01', '2999-12-31');
    expect(days.reduce((n, d) => n + d.captures, 0)).toBe(1);
    expect(days.reduce((n, d) => n + (d.cacheHits ?? 0), 0)).toBe(2);
  });

  it('expired entries are swept from the index and the store, and then miss', async () => {
    await get({ ...BASE, cache_ttl: '60' });
    const [row] = await t.accounts.db.kysely.selectFrom('cache_entries').select(['key']).execute();
    expect(await store.getObject(row!.key)).not.toBeNull();
    const sweeper = new CaptureCache(t.accounts.db, store);
    try {
      expect(await sweeper.sweep(new Date(Date.now() + 30_000))).toBe(0);
      expect(await sweeper.sweep(new Date(Date.now() + 61_000))).toBe(1);
    } finally {
      sweeper.close();
    }
    expect(await t.accounts.db.kysely.selectFrom('cache_entries').select(['key']).execute()).toEqual([]);
    expect(await store.getObject(row!.key)).toBeNull();
    expect((await get({ ...BASE, cache_ttl: '60' })).headers['x-shutter-cache']).toBe('MISS');
  });
});

describe('the copy in memory of each node', () => {
  const png = (fill: number, size = 100): CaptureResult => ({ body: Buffer.alloc(size, fill), format: 'png', contentType: 'image/png' });
  const key = (n: number) => n.toString(16).padStart(64, '0');

  it('answers a hit without reading the store', async () => {
    const miss = await get(BASE);
    const read = vi.spyOn(store, 'getObject');
    const hits = await Promise.all([get(BASE), get(BASE), get(BASE)]);
    expect(hits.map((h) => h.headers['x-shutter-cache'])).toEqual(['HIT', 'HIT', 'HIT']);
    for (const hit of hits) expect(hit.rawPayload.equals(miss.rawPayload)).toBe(true);
    expect(read).not.toHaveBeenCalled();
  });

  it('answers only while the index row holds the same ETag: an entry stored again elsewhere is read anew', async () => {
    const cache = new CaptureCache(t.accounts.db, store);
    try {
      await cache.put(key(1), t.account.id, png(1), 60);
      expect((await cache.get(key(1)))?.result.body.equals(png(1).body)).toBe(true);
      // Another node renders the same identity again: its file and its row replace these.
      const other = new CaptureCache(t.accounts.db, store);
      await other.put(key(1), t.account.id, png(2), 60);
      other.close();
      const read = vi.spyOn(store, 'getObject');
      const again = await cache.get(key(1));
      expect(again?.result.body.equals(png(2).body)).toBe(true);
      expect(again?.etag).toBe(etagOf(png(2).body));
      expect(read).toHaveBeenCalledTimes(1);
      // And then from memory again.
      await cache.get(key(1));
      expect(read).toHaveBeenCalledTimes(1);
    } finally {
      cache.close();
    }
  });

  it('extra_formats: each output is stored beside the file, read back by another node, a missing one is a miss, the sweep removes them all', async () => {
    const withExtras = (fill: number): CaptureResult => ({
      ...png(fill),
      warnings: ['partial_load'],
      extra: [
        { format: 'markdown', contentType: 'text/markdown; charset=utf-8', body: Buffer.from(`# page ${fill}\n`) },
        { format: 'pdf', contentType: 'application/pdf', body: Buffer.alloc(50, fill + 1) },
      ],
    });
    const writer = new CaptureCache(t.accounts.db, store);
    const reader = new CaptureCache(t.accounts.db, store, { memoryBytes: 0 });
    try {
      const now = Date.now();
      await writer.put(key(40), t.account.id, withExtras(7), 60, new Date(now));
      expect(writer.memoryBytes).toBe(100 + 9 + 50);
      const read = vi.spyOn(store, 'getObject');
      const got = await reader.get(key(40), new Date(now));
      expect(read).toHaveBeenCalledTimes(3);
      expect(got?.result.body.equals(png(7).body)).toBe(true);
      expect(got?.result.warnings).toEqual(['partial_load']);
      expect(got?.result.extra?.map((e) => [e.format, e.contentType, e.body.toString('hex')])).toEqual(
        withExtras(7).extra!.map((e) => [e.format, e.contentType, e.body.toString('hex')]),
      );
      // An output gone from the store (a failed write, a bucket lifecycle rule): the entry is a miss, not a partial answer.
      const objects = read.mock.calls.map(([name]) => name).filter((name) => name !== key(40));
      expect(objects).toHaveLength(2);
      await store.deleteObject(objects[1]!);
      expect(await reader.get(key(40), new Date(now))).toBeNull();
      // Expired: the sweep deletes the file and every output.
      await writer.put(key(41), t.account.id, withExtras(8), 60, new Date(now));
      const removed = vi.spyOn(store, 'deleteObject');
      await writer.sweep(new Date(now + 61_000));
      expect(removed.mock.calls.filter(([name]) => name === key(41))).toHaveLength(1);
      expect(removed.mock.calls.length).toBeGreaterThanOrEqual(2 * 3);
      for (const [name] of removed.mock.calls) expect(await store.getObject(name)).toBeNull();
    } finally {
      writer.close();
      reader.close();
    }
  });

  it('never answers an expired entry, and forgets it', async () => {
    const cache = new CaptureCache(t.accounts.db, store);
    try {
      const now = Date.now();
      await cache.put(key(2), t.account.id, png(3), 60, new Date(now));
      expect(cache.memoryBytes).toBe(100);
      expect(await cache.get(key(2), new Date(now + 59_000))).not.toBeNull();
      expect(await cache.get(key(2), new Date(now + 60_000))).toBeNull();
      expect(cache.memoryBytes).toBe(0);
      // The sweep drops expired copies too.
      await cache.put(key(3), t.account.id, png(4), 60, new Date(now));
      expect(cache.memoryBytes).toBe(100);
      await cache.sweep(new Date(now + 61_000));
      expect(cache.memoryBytes).toBe(0);
    } finally {
      cache.close();
    }
  });

  it('holds at most its bytes; a file over the bound of one is served from the store', async () => {
    const cache = new CaptureCache(t.accounts.db, store, { memoryBytes: 250, memoryEntryBytes: 150 });
    try {
      for (let n = 10; n < 20; n++) {
        await cache.put(key(n), t.account.id, png(n), 60);
        expect(cache.memoryBytes).toBeLessThanOrEqual(250);
      }
      expect(cache.memoryBytes).toBe(200);
      // Every entry is still answered, from the store when not in memory.
      for (let n = 10; n < 20; n++) expect((await cache.get(key(n)))?.result.body.equals(png(n).body)).toBe(true);
      expect(cache.memoryBytes).toBeLessThanOrEqual(250);
      await cache.put(key(30), t.account.id, png(30, 200), 60);
      const read = vi.spyOn(store, 'getObject');
      expect((await cache.get(key(30)))?.result.body.equals(png(30, 200).body)).toBe(true);
      expect((await cache.get(key(30)))?.result.body.length).toBe(200);
      expect(read).toHaveBeenCalledTimes(2);
    } finally {
      cache.close();
    }
  });
});
