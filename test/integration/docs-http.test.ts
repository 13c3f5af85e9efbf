import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swaggerUiDir } from '../../src/http/routes/docs.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/** GET /docs over HTTP (issue 20): the page, its CSP and its allowlisted assets. The browser test is test/e2e/docs.test.ts. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.app.close();
  await t.keys.close();
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET /docs', () => {
  it('answers the page at /docs and /docs/, without a key, under a same-origin-only CSP', async () => {
    for (const url of ['/docs', '/docs/']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      // Every script and stylesheet is one of ours, and no script is inline.
      const sources = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.filter((s) => s.startsWith('/docs/assets/')).map((s) => s.replace(/\?v=[\w-]+$/, ''))).toEqual([
        '/docs/assets/favicon-32x32.png',
        '/docs/assets/swagger-ui.css',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/init.js',
      ]);
      expect(sources.every((s) => s.startsWith('/'))).toBe(true);
      expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
    }
  });

  it('serves the allowlisted assets with their content types, a year of caching and ETags', async () => {
    const dir = swaggerUiDir();
    const cases = [
      ['swagger-ui.css', 'text/css; charset=utf-8', readFileSync(join(dir, 'swagger-ui.css'))],
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8', readFileSync(join(dir, 'swagger-ui-bundle.js'))],
      ['favicon-32x32.png', 'image/png', readFileSync(join(dir, 'favicon-32x32.png'))],
    ] as const;
    for (const [name, type, body] of cases) {
      const res = await get(`/docs/assets/${name}?v=whatever`);
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type'], name).toBe(type);
      expect(res.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-encoding'], name).toBeUndefined();
      expect(res.rawPayload.equals(body), name).toBe(true);
      const again = await get(`/docs/assets/${name}`, { 'if-none-match': String(res.headers.etag) });
      expect(again.statusCode, name).toBe(304);
    }
    const init = await get('/docs/assets/init.js');
    expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(init.body).toContain("url: '/openapi.json'");
    expect(init.body).toContain('validatorUrl: null');
  });

  it('gzips text assets for clients that accept it, as a representation with its own ETag', async () => {
    const plain = await get('/docs/assets/swagger-ui-bundle.js');
    const res = await get('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br, gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(res.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(res.headers.etag).not.toBe(plain.headers.etag);
    const image = await get('/docs/assets/favicon-32x32.png', { 'accept-encoding': 'gzip' });
    expect(image.headers['content-encoding']).toBeUndefined();
  });

  it('answers 404 for any other name, and never a path outside the allowlist', async () => {
    for (const url of [
      '/docs/assets/index.html',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/package.json',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/../package.json',
      '/docs/assets/%2e%2e%2fpackage.json',
      '/docs/assets/',
      '/docs/nothing',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});
