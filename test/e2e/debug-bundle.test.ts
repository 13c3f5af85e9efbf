import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * debug=1 (issue 16): the bundle at GET /v1/requests/{id} holds the options with secrets redacted,
 * the step timeline, every request of the page with who blocked it, console messages and page
 * errors, and a screenshot and the HTML in the store, also for a capture that failed; other
 * accounts get 404.
 */
let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    store: true,
    // private.example is on a network the egress guard refuses.
    resolve: staticResolver({ 'site.example': '127.0.0.1', 'private.example': '10.0.0.7' }),
  });
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const page = (path: string) => `http://site.example:${fixture.port}/${path}`;

async function take(params: Array<[string, string]>, apikey = service.apiKey) {
  return service.app.inject({ method: 'GET', url: `/v1/take?${new URLSearchParams(params)}`, headers: { apikey } });
}

async function bundleOf(requestId: string, apikey = service.apiKey) {
  return service.app.inject({ method: 'GET', url: `/v1/requests/${requestId}`, headers: { apikey } });
}

/** Fetches a stored file's link through the service (local store: /v1/files/…). */
async function fetchStored(url: string) {
  const { pathname, search } = new URL(url);
  return service.app.inject({ method: 'GET', url: pathname + search });
}

interface Bundle {
  request_id: string;
  status: number;
  error: { code: string; message: string } | null;
  options: Record<string, unknown>;
  steps: Array<{ name: string; ms: number; failed?: boolean }>;
  requests: Array<{
    url: string;
    type: string;
    status: number | null;
    bytes: number | null;
    ms: number | null;
    blocked_by: string | null;
    error: string | null;
  }>;
  console: Array<{ type: string; text: string }>;
  errors: string[];
  screenshot_url: string | null;
  html_url: string | null;
}

describe('debug=1', () => {
  it('keeps a bundle of a successful capture: options redacted, steps, requests with blocked_by, console, errors, screenshot, html', async () => {
    const res = await take([
      ['url', page('diagnostics/debug.html')],
      ['debug', '1'],
      ['block_requests', '*?blocked'],
      ['headers', 'Authorization: Bearer s3cret'],
    ]);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const requestId = res.headers['x-request-id'] as string;
    const got = await bundleOf(requestId);
    expect(got.statusCode, got.body).toBe(200);
    const bundle = got.json() as Bundle;
    expect(bundle).toMatchObject({ request_id: requestId, status: 200, error: null });
    expect(bundle.options).toMatchObject({ url: page('diagnostics/debug.html'), debug: true, headers: [['authorization', '[redacted]']] });
    expect(JSON.stringify(bundle)).not.toContain('s3cret');
    expect(bundle.steps.map((s) => s.name)).toEqual(expect.arrayContaining(['navigate', 'wait_until', 'render']));
    expect(bundle.steps.every((s) => s.ms >= 0 && !s.failed)).toBe(true);

    const byUrl = (part: string) => bundle.requests.find((r) => r.url.includes(part));
    expect(byUrl('diagnostics/debug.html')).toMatchObject({ type: 'document', status: 200, blocked_by: null });
    expect(byUrl('debug.html')!.bytes).toBeGreaterThan(300);
    expect(byUrl('/green.svg')).toMatchObject({ type: 'image', status: 200, blocked_by: null });
    expect(byUrl('green.svg?blocked')).toMatchObject({ blocked_by: 'block_requests', status: null });
    expect(byUrl('private.example')).toMatchObject({ blocked_by: 'egress', status: null });
    // Chromium only sees the egress proxy give up (ERR_SOCKS_CONNECTION_FAILED); the bundle names why.
    expect(byUrl('dead.example')).toMatchObject({ blocked_by: null, status: null, error: 'net::ERR_NAME_NOT_RESOLVED' });

    expect(bundle.console).toEqual(
      expect.arrayContaining([
        { type: 'log', text: 'hello from the page' },
        { type: 'warning', text: 'a warning' },
      ]),
    );
    expect(bundle.errors.join('\n')).toContain('boom in a timer');

    const shot = await fetchStored(bundle.screenshot_url!);
    expect(shot.statusCode).toBe(200);
    expect(await sharp(shot.rawPayload).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const html = await fetchStored(bundle.html_url!);
    expect(html.body).toContain('<h1>Debug me</h1>');
  });

  it('a capture that times out still has its bundle: the failed step and a screenshot of the moment', async () => {
    const res = await take([
      ['url', page('diagnostics/debug.html')],
      ['debug', '1'],
      ['wait_for_selector', '#never'],
      ['timeout', '3'],
    ]);
    expect(res.statusCode).toBe(504);
    const bundle = (await bundleOf(res.headers['x-request-id'] as string)).json() as Bundle;
    expect(bundle).toMatchObject({ status: 504, error: { code: 'capture_timeout' } });
    expect(bundle.steps.at(-1)).toMatchObject({ name: 'wait_for_selector', failed: true });
    expect(bundle.steps.at(-1)!.ms).toBeGreaterThan(1000);
    expect(bundle.screenshot_url).not.toBeNull();
    const shot = await fetchStored(bundle.screenshot_url!);
    expect((await sharp(shot.rawPayload).metadata()).format).toBe('png');
    expect((await fetchStored(bundle.html_url!)).body).toContain('Debug me');
  });

  it('a capture that fails in a step has it marked failed', async () => {
    const res = await take([
      ['url', page('diagnostics/debug.html')],
      ['debug', '1'],
      ['scripts', 'throw new Error("nope")'],
    ]);
    expect(res.statusCode).toBe(422);
    const bundle = (await bundleOf(res.headers['x-request-id'] as string)).json() as Bundle;
    expect(bundle.error?.code).toBe('script_failed');
    expect(bundle.steps.at(-1)).toMatchObject({ name: 'scripts', failed: true });
    expect(bundle.screenshot_url).not.toBeNull();
  });

  it('without debug=1 there is no bundle, and another account never sees one (404 both)', async () => {
    const plain = await take([['url', page('simple.html')]]);
    expect(plain.statusCode).toBe(200);
    expect((await bundleOf(plain.headers['x-request-id'] as string)).statusCode).toBe(404);

    const debugged = await take([
      ['url', page('simple.html')],
      ['debug', '1'],
    ]);
    const id = debugged.headers['x-request-id'] as string;
    const account = await service.accounts.accounts.create({ email: 'other@example.test', plan: 'free' });
    if (!account.ok) throw new Error(account.message);
    const { key } = await service.keys.create({ name: 'other', accountId: account.value.id });
    const other = await bundleOf(id, key);
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('not_found');
    expect((await bundleOf(id)).statusCode).toBe(200);
  });
});
