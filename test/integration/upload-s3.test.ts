import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Store } from '../../src/storage/s3-store.js';
import { buildTestApp, sampleFile } from '../helpers/stub-engine.js';

// A real S3-protocol server on 127.0.0.1, started by the test: no mock of the SDK.
let server: S3rver;
let endpoint: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-s3-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'shots', configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const s3 = (extra: Partial<ConstructorParameters<typeof S3Store>[0]> = {}) =>
  new S3Store({
    bucket: 'shots',
    region: 'us-east-1',
    endpoint,
    prefix: 'captures/',
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    ttlSeconds: 600,
    ...extra,
  });

describe('upload=1 on an S3-compatible store', () => {
  it('uploads with Content-Type and Content-Disposition and answers a presigned URL that serves the file', async () => {
    const store = s3();
    const t = await buildTestApp({ store });
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/take',
      query: { url: 'https://example.com', upload: '1', format: 'webp', attachment_name: 'home' },
      headers: { apikey: t.key },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ format: 'webp', content_type: 'image/webp' });
    expect(body.url).toContain(`${endpoint}/shots/captures/`);
    expect(body.url).toContain('X-Amz-Signature=');
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(590_000);

    const file = await fetch(body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="home.webp"');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.equals(await sampleFile('webp'))).toBe(true);
    expect(body.size).toBe(bytes.length);
    await t.app.close();
    await store.close();
  });

  it("an operator's public base URL replaces presigning, and links do not expire", async () => {
    const store = s3({ publicBaseUrl: `${endpoint}/shots/` });
    const stored = await store.put({ body: Buffer.from('%PDF-1.7'), contentType: 'application/pdf', extension: 'pdf' });
    expect(stored.expiresAt).toBeNull();
    expect(stored.url).toMatch(new RegExp(`^${endpoint}/shots/captures/[0-9A-Za-z]{24}\\.pdf$`));
    const file = await fetch(stored.url);
    expect(await file.text()).toBe('%PDF-1.7');
    expect(file.headers.get('content-disposition')).toBe('inline');
    await store.close();
  });

  it('an unreachable bucket is 502 storage_failed', async () => {
    const store = s3({ endpoint: 'http://127.0.0.1:9', bucket: 'none' });
    const t = await buildTestApp({ store });
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/take',
      query: { url: 'https://example.com', upload: '1' },
      headers: { apikey: t.key },
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('storage_failed');
    await t.app.close();
    await store.close();
  });
});
