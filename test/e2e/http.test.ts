import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { nameOf, pixels, startService, type Service } from './harness.js';

/**
 * The real service over real HTTP (listen + fetch): failures, time limits, the target check,
 * concurrency and the response headers of each format.
 */

let service: Service;
let fixtures: FixtureServer;
let baseUrl: string;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([startFixtureServer(), startService()]);
  baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

interface ErrorBody {
  error: { code: string; message: string; details?: unknown[] };
  request_id: string;
}

function takeUrl(params: Record<string, string>): string {
  return `${baseUrl}/v1/take?${new URLSearchParams(params).toString()}`;
}

async function take(params: Record<string, string>, apiKey = service.apiKey): Promise<Response> {
  return fetch(takeUrl(params), { headers: { apikey: apiKey } });
}

async function errorOf(res: Response): Promise<ErrorBody> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as ErrorBody;
}

async function bodyOf(res: Response): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  expect(res.status, res.status === 200 ? '' : body.toString('utf8')).toBe(200);
  return body;
}

describe('responses over HTTP', () => {
  it.each([
    ['png', 'image/png', 'png'],
    ['jpg', 'image/jpeg', 'jpeg'],
    ['jpeg', 'image/jpeg', 'jpeg'],
    ['webp', 'image/webp', 'webp'],
    ['gif', 'image/gif', 'gif'],
  ])('format=%s answers %s with matching bytes and headers', async (format, contentType, sharpFormat) => {
    const res = await take({ url: `${fixtures.baseUrl}/simple.html`, format, viewport_width: '320', viewport_height: '240' });
    const body = await bodyOf(res);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const meta = await sharp(body).metadata();
    expect(meta.format).toBe(sharpFormat);
    expect([meta.width, meta.height]).toEqual([320, 240]);
  });

  it('attachment_name makes the file a download with the format extension', async () => {
    const res = await take({ url: `${fixtures.baseUrl}/simple.html`, format: 'webp', attachment_name: 'shot' });
    await bodyOf(res);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?shot\.webp"?/);
  });

  it('a capture needs an API key', async () => {
    const res = await fetch(takeUrl({ url: `${fixtures.baseUrl}/simple.html` }));
    expect(res.status).toBe(401);
    expect((await errorOf(res)).error.code).toBe('missing_api_key');
  });
});

describe('failures', () => {
  it('a page that never answers gives 504 capture_timeout within the timeout, and the next capture succeeds', async () => {
    const started = performance.now();
    const res = await take({ url: `${fixtures.baseUrl}/hang`, timeout: '2' });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    const body = await errorOf(res);
    expect(body.error.code).toBe('capture_timeout');
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(4500);
    expect(fixtures.requests).toContain('/hang');

    // The slot and the browser are usable again.
    expect(service.engine.status().pool.busy).toBe(0);
    const next = await take({ url: `${fixtures.baseUrl}/simple.html` });
    const png = await bodyOf(next);
    expect(nameOf((await pixels(png)).at(100, 100))).toBe('red');
    expect(service.engine.ready()).toBe(true);
  });

  it('a page that answers after the timeout gives 504 at the timeout', async () => {
    const started = performance.now();
    const res = await take({ url: `${fixtures.baseUrl}/slow?ms=5000`, timeout: '1' });
    expect(res.status).toBe(504);
    expect((await errorOf(res)).error.code).toBe('capture_timeout');
    expect(performance.now() - started).toBeLessThan(3500);
  });

  it('connection refused gives 422 navigation_failed naming the network error', async () => {
    const port = await closedPort();
    const res = await take({ url: `http://127.0.0.1:${port}/`, timeout: '10' });
    expect(res.status).toBe(422);
    const body = await errorOf(res);
    expect(body.error.code).toBe('navigation_failed');
    expect(body.error.message).toMatch(/ERR_CONNECTION_REFUSED/);
    expect(body.error.details).toEqual({ error: 'ERR_CONNECTION_REFUSED', kind: 'refused' });
  });

  it('the service still captures after the failures above', async () => {
    const res = await take({ url: `${fixtures.baseUrl}/simple.html`, format: 'jpg' });
    expect((await bodyOf(res)).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });
});

describe('concurrency', () => {
  it('8 concurrent captures all succeed with their own options', async () => {
    const widths = [300, 320, 340, 360, 380, 400, 420, 440];
    const responses = await Promise.all(
      widths.map((w) => take({ url: `${fixtures.baseUrl}/simple.html?n=${w}`, viewport_width: String(w), viewport_height: '300' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses).toEqual(widths.map(() => 200));
    const sizes = await Promise.all(
      responses.map(async (r) => {
        const px = await pixels(Buffer.from(await r.arrayBuffer()));
        return [px.width, px.height, nameOf(px.at(100, 100))];
      }),
    );
    expect(sizes).toEqual(widths.map((w) => [w, 300, 'red']));
    expect(service.engine.status().pool).toMatchObject({ busy: 0, queued: 0 });
  });
});

describe('target check', () => {
  let strict: Service;

  beforeAll(async () => {
    // Loopback not allowed: such requests must be refused before any browser work.
    strict = await startService({ allowedPrivateNetworks: '', startBrowser: false });
  });

  afterAll(async () => {
    await strict?.close();
  });

  it.each([
    ['an IP literal', (port: number) => `http://127.0.0.1:${port}/simple.html?forbidden=ip`],
    ['a name resolving to 127.0.0.1', (port: number) => `http://localhost:${port}/simple.html?forbidden=name`],
  ])('%s on loopback is 403 target_forbidden when no private network is allowed', async (_label, urlFor) => {
    const url = urlFor(fixtures.port);
    const res = await strict.app.inject({
      method: 'GET',
      url: `/v1/take?${new URLSearchParams({ url }).toString()}`,
      headers: { apikey: strict.apiKey },
    });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json<ErrorBody>().error.code).toBe('target_forbidden');
    const path = url.slice(url.indexOf('/simple.html'));
    expect(fixtures.requests).not.toContain(path);
  });
});
