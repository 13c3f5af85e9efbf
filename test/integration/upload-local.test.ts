import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/storage/file-store.js';
import { LocalStore } from '../../src/storage/local-store.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { buildTestApp, sampleFile, type TestApp } from '../helpers/stub-engine.js';

let dir: string;
let store: LocalStore;
let t: TestApp;
const signer = new UrlSigner(Buffer.from('x'.repeat(32)));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-files-'));
  store = new LocalStore({ dir, signer, ttlSeconds: 3600, logger: pino({ level: 'silent' }) });
  t = await buildTestApp({ store });
});

afterEach(async () => {
  await t.app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const upload = (query: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { url: 'https://example.com', upload: '1', ...query },
    headers: { apikey: t.key, host: 'shots.test:8080' },
  });

/** The path and query of a link, for app.inject. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describe('upload=1 on the local store', () => {
  it('a partial load says so: X-Shutter-Warning and warnings + pending_requests in the JSON', async () => {
    t.engine.partial = [{ url: 'https://px.tracker.example/p.gif', age_ms: 5012 }];
    const res = await upload();
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-warning']).toBe('partial_load');
    expect(res.json()).toMatchObject({
      warnings: ['partial_load'],
      pending_requests: [{ url: 'https://px.tracker.example/p.gif', age_ms: 5012 }],
    });
    t.engine.partial = undefined;
    const clean = await upload();
    expect(clean.headers['x-shutter-warning']).toBeUndefined();
    expect(clean.json().warnings).toBeUndefined();
  });

  it('answers JSON with a signed URL on this service, and the URL serves the file without a key', async () => {
    const res = await upload();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['content_type', 'expires_at', 'format', 'request_id', 'size', 'url']);
    expect(body).toMatchObject({ format: 'png', content_type: 'image/png', request_id: res.headers['x-request-id'] });
    expect(res.headers['server-timing']).toMatch(/capture;dur=/);
    expect(body.url).toMatch(/^http:\/\/shots\.test:8080\/v1\/files\/[0-9A-Za-z]{24}\.png\?expires=\d+&sig=[\w-]+$/);
    const expires = Date.parse(body.expires_at);
    expect(expires - Date.now()).toBeGreaterThan(3500_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(3600_000);

    const file = await t.app.inject({ method: 'GET', url: pathOf(body.url) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.rawPayload.equals(await sampleFile('png'))).toBe(true);
    expect(body.size).toBe(file.rawPayload.length);
    expect(file.headers['content-disposition']).toMatch(/^inline/);
  });

  it('attachment_name names the download of the stored file', async () => {
    const body = (await upload({ attachment_name: 'Bericht März', format: 'jpg' })).json();
    const file = await t.app.inject({ method: 'GET', url: pathOf(body.url) });
    expect(file.headers['content-type']).toBe('image/jpeg');
    expect(file.headers['content-disposition']).toContain('attachment;');
    expect(file.headers['content-disposition']).toContain("filename*=UTF-8''Bericht%20M%C3%A4rz.jpg");
  });

  it('SHUTTER_PUBLIC_URL sets the base of the links', async () => {
    await t.app.close();
    t = await buildTestApp({ store, publicUrl: 'https://shots.example.com' });
    expect((await upload()).json().url).toMatch(/^https:\/\/shots\.example\.com\/v1\/files\//);
  });

  it('a tampered link is 403 link_invalid: other signature, other expiry, other name', async () => {
    const url = new URL((await upload()).json().url);
    const name = url.pathname.split('/').pop()!;
    const expires = url.searchParams.get('expires')!;
    const sig = url.searchParams.get('sig')!;
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const path of [
      `/v1/files/${name}?expires=${expires}&sig=${flip(sig)}`,
      `/v1/files/${name}?expires=${Number(expires) + 1000}&sig=${sig}`,
      `/v1/files/${flip(name)}?expires=${expires}&sig=${sig}`,
      `/v1/files/${name}?expires=${expires}`,
      `/v1/files/${name}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(403);
      expect(res.json().error.code).toBe('link_invalid');
    }
  });

  it('an expired link is 403, with the same answer as a forged one', async () => {
    const body = (await upload()).json();
    const name = new URL(body.url).pathname.split('/').pop()!;
    const past = Math.floor(Date.now() / 1000) - 10;
    const res = await t.app.inject({ method: 'GET', url: `/v1/files/${name}?expires=${past}&sig=${signer.sign(name, past)}` });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('link_invalid');
  });

  it('paths outside the store cannot be named, even with a valid signature for them', async () => {
    for (const name of ['..%2F..%2Fetc%2Fpasswd', '..%2Fsigning-secret', 'x.png.json', '%2Fetc%2Fpasswd']) {
      const decoded = decodeURIComponent(name);
      const expires = Math.floor(Date.now() / 1000) + 60;
      const res = await t.app.inject({ method: 'GET', url: `/v1/files/${name}?expires=${expires}&sig=${signer.sign(decoded, expires)}` });
      expect([403, 404], name).toContain(res.statusCode);
      expect(res.body).not.toContain('root:');
    }
  });

  it('expired files are removed by the sweep, live ones kept', async () => {
    await upload();
    await upload();
    expect((await readdir(dir)).length).toBe(4); // two files, two sidecars
    expect(await store.sweep(Date.now())).toBe(0);
    expect(await store.sweep(Date.now() + 3601_000)).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a failing store is 502 storage_failed, and the capture is not charged', async () => {
    const broken: FileStore = {
      put: async () => {
        throw new Error('ENOSPC: no space left on device');
      },
      putObject: async () => {
        throw new Error('ENOSPC: no space left on device');
      },
      getObject: async () => null,
      deleteObject: async () => undefined,
      close: async () => undefined,
    };
    await t.app.close();
    t = await buildTestApp({ store: broken });
    const res = await upload();
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('storage_failed');
    const status = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: t.key } });
    expect(status.json().usage.used).toBe(0);
    expect(res.body).not.toContain('ENOSPC');
  });
});

describe('upload=1 without a store', () => {
  it('answers 501 not_implemented', async () => {
    await t.app.close();
    t = await buildTestApp();
    const res = await upload();
    expect(res.statusCode).toBe(501);
  });
});
