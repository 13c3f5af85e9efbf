import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/** response_type (by_format, json, empty) and metadata=1 (issue 17, DESIGN.md §4.2) on real Chromium. */
let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    store: true,
    resolve: staticResolver({ 'site.example': '127.0.0.1' }),
  });
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const page = (path: string) => `http://site.example:${fixture.port}/${path}`;
const take = (params: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: `/v1/take?${new URLSearchParams(params)}`, headers: { apikey: service.apiKey } });

describe('response_type=json', () => {
  it('answers what was captured: size, image width and height, the file as base64, timings; no metadata unless asked', async () => {
    const res = await take({ url: page('response/meta.html'), response_type: 'json', viewport_width: '1000', viewport_height: '700' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body).toMatchObject({
      request_id: res.headers['x-request-id'],
      format: 'png',
      content_type: 'image/png',
      width: 1000,
      height: 700,
      url: null,
      expires_at: null,
      cache: null,
      metadata: null,
      warnings: [],
    });
    const file = Buffer.from(body.data_base64, 'base64');
    expect(file.length).toBe(body.size);
    expect(await sharp(file).metadata()).toMatchObject({ format: 'png', width: 1000, height: 700 });
    expect(Object.keys(body.timings)).toEqual(expect.arrayContaining(['navigate', 'wait', 'capture']));
  });

  it('metadata=1: title, description, Open Graph, Twitter, icons, canonical and final URL, status and headers, fonts, height', async () => {
    const res = await take({ url: page('response/meta.html'), response_type: 'json', metadata: '1', format: 'jpg' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const { metadata } = res.json();
    expect(metadata).toMatchObject({
      title: 'Release notes 4.2',
      description: 'What changed in version 4.2.',
      open_graph: { title: 'Release 4.2', image: 'https://cdn.example.test/og/4.2.png', type: 'article' },
      twitter: { card: 'summary_large_image', site: '@example' },
      icons: [page('favicon-32.png'), page('apple-touch.png')],
      canonical_url: 'https://www.example.test/releases/4.2',
      final_url: page('response/meta.html'),
      http_status: 200,
      page_height: 2440,
    });
    expect(metadata.http_headers['content-type']).toBe('text/html; charset=utf-8');
    expect(metadata.fonts).toContain('Notes Serif');
  });

  it('with upload=1 it gives the stored URL instead of base64; markdown has no width', async () => {
    const res = await take({ url: page('response/meta.html'), response_type: 'json', upload: '1', format: 'markdown' });
    const body = res.json();
    expect(body).toMatchObject({ format: 'markdown', data_base64: null });
    expect(body.url).toMatch(/\/v1\/files\//);
    expect(body.expires_at).toMatch(/^\d{4}-/);
    expect(body.width).toBeUndefined();
    const { pathname, search } = new URL(body.url);
    expect((await service.app.inject({ method: 'GET', url: pathname + search })).body).toContain('Release notes 4.2');
  });

  it('metadata without response_type=json is a 400 naming both', async () => {
    const res = await take({ url: page('response/meta.html'), metadata: '1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0]).toMatchObject({ parameter: 'metadata', conflicts_with: 'response_type' });
  });
});

describe('response_type=empty', () => {
  it('answers 200 without a body, and the capture counts', async () => {
    const res = await take({ url: page('response/meta.html'), response_type: 'empty' });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(0);
    expect(res.headers['server-timing']).toMatch(/capture;dur=/);
  });
});
