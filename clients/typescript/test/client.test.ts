// The client against a real Shutter: the repository's in-process service (real Chromium) listening
// on 127.0.0.1, pages from the fixture server. Features still being built on the server (signed
// links, response_type=json, async jobs, bulk, webhooks) are probed first; their tests skip until
// the server has them and then run as they are.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../../../test/helpers/fixture-server.js';
import { greyFrames, probe } from '../../../test/helpers/video.js';
import { ShutterClient, ShutterError, verifyWebhook, type AnimateOptions, type Status, type TakeOptions } from '../src/index.js';
import { hasRoute, isPng, knowsParameter, pngSize, startShutter, type RunningShutter } from './helpers/shutter.js';

let shutter: RunningShutter;
let fixture: FixtureServer;
let client: ShutterClient;
let status: Status;
/** What the server under test can do (DESIGN §4.2, §4.3), probed without rendering anything. */
const features = { json: false, metadata: false, signedLinks: false, async: false, bulk: false, webhooks: false };

beforeAll(async () => {
  [shutter, fixture] = await Promise.all([startShutter({ store: true }), startFixtureServer()]);
  client = new ShutterClient({ apiKey: shutter.apiKey, baseUrl: shutter.baseUrl });
  status = await client.status();
  features.json = await knowsParameter(shutter, 'response_type', 'json');
  features.metadata = await knowsParameter(shutter, 'metadata', true);
  features.async = await knowsParameter(shutter, 'async', true);
  features.webhooks = features.async && (await knowsParameter(shutter, 'webhook_url', 'http://127.0.0.1:9/hook'));
  features.bulk = await hasRoute(shutter, '/v1/bulk');
  features.signedLinks = typeof status.key.signing_secret === 'string' && status.key.signing_secret !== '';
});

afterAll(async () => {
  await shutter?.close();
  await stopFixtureServer(fixture);
});

const page = (path = '/simple.html') => `${fixture.baseUrl}${path}`;

/** The rejection of a promise that must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

describe('take', () => {
  it('answers a PNG of the viewport, 1280 px wide by default', async () => {
    const png = await client.take({ url: page() });
    expect(png).toBeInstanceOf(Uint8Array);
    expect(isPng(png)).toBe(true);
    expect(pngSize(png)).toEqual({ width: 1280, height: 800 });
  });

  it('sends typed options as JSON: html source, jpg with quality, a viewport', async () => {
    const options: TakeOptions = {
      html: '<h1 style="color: red">Hello</h1>',
      format: 'jpg',
      quality: 60,
      viewport_width: 400,
      viewport_height: 300,
    };
    const jpg = await client.take(options);
    expect([...jpg.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  it('answers a 400 as a ShutterError with code, details and the request id', async () => {
    const error = await rejectionOf(client.take({ url: page(), viewport_width: 50 }, { requestId: 'client-test-400' }));
    expect(error).toBeInstanceOf(ShutterError);
    const e = error as ShutterError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_parameter');
    expect(e.message).toMatch(/viewport_width/);
    expect(e.problems[0]).toMatchObject({ parameter: 'viewport_width' });
    expect(e.requestId).toBe('client-test-400');
  });

  it('names an unknown parameter with a suggestion, and a request id of the server’s own', async () => {
    const e = (await rejectionOf(client.take({ url: page(), full_pag: true } as TakeOptions))) as ShutterError;
    expect(e).toMatchObject({ status: 400, code: 'unknown_parameter' });
    expect(e.problems).toContainEqual(expect.objectContaining({ parameter: 'full_pag', suggestion: 'full_page' }));
    expect(e.requestId).toMatch(/^[\w.:-]{8,}$/);
  });

  it('answers a wrong key with 401 invalid_api_key', async () => {
    const stranger = new ShutterClient({ apiKey: 'shk_not_a_real_key', baseUrl: shutter.baseUrl });
    const e = (await rejectionOf(stranger.status())) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e.status).toBe(401);
    expect(['invalid_api_key', 'missing_api_key']).toContain(e.code);
  });

  it('stops at once when its AbortSignal fires, with the signal’s reason', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const error = await rejectionOf(client.take({ url: page('/slow?ms=3000') }, { signal: controller.signal }));
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(2000);

    const reason = new Error('changed my mind');
    expect(await rejectionOf(client.take({ url: page() }, { signal: AbortSignal.abort(reason) }))).toBe(reason);
  });

  it('gives up after the call’s timeout with a ShutterError timeout', async () => {
    const started = Date.now();
    const e = (await rejectionOf(client.take({ url: page('/slow?ms=3000') }, { timeoutMs: 300 }))) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e).toMatchObject({ status: 0, code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('animate', () => {
  it('answers the video’s bytes: a webm of exactly duration × fps frames, scrolled with the animate options', async () => {
    const used = (await client.status()).usage.used;
    const video = await client.animate({
      url: page('/animate/gradient.html'),
      format: 'webm',
      duration: 1,
      fps: 4,
      viewport_width: 320,
      viewport_height: 200,
      scenario: 'scroll',
      scroll_by: 400,
      scroll_easing: 'linear',
    });
    expect(video).toBeInstanceOf(Uint8Array);
    expect(await probe(video)).toMatchObject({ codec: 'vp9', width: 320, height: 200, frames: 4 });
    // Down the ramp (black at the top, lighter below): the last frame is lighter than the first.
    const frames = await greyFrames(Buffer.from(video), 320, 200);
    expect(frames[3]![0]!).toBeGreaterThan(frames[0]![0]! + 20);
    // One video, one capture.
    expect((await client.status()).usage.used).toBe(used + 1);
  }, 120_000);

  it('answers a still-image option as a ShutterError 400 parameter_not_applicable naming it', async () => {
    const e = (await rejectionOf(client.animate({ url: page(), duration: 1, quality: 80 } as AnimateOptions))) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e).toMatchObject({ status: 400, code: 'parameter_not_applicable' });
    expect(e.problems).toEqual([expect.objectContaining({ parameter: 'quality', code: 'parameter_not_applicable' })]);
  });
});

describe('status and devices', () => {
  it('status() describes the key, its plan and usage, and the service', async () => {
    const now = await client.status();
    expect(now.status).toBe('ok');
    expect(now.version).toBe('test');
    expect(now.key.id).toEqual(expect.any(String));
    expect(shutter.apiKey.startsWith(now.key.prefix)).toBe(true);
    expect(now.plan.name).toEqual(expect.any(String));
    expect(now.usage.used).toBeGreaterThanOrEqual(0);
    expect(now.usage.limit).toBe(now.plan.monthly_quota);
    expect(now.rate_limit.limit).toBeGreaterThan(0);
    expect(now.service.pool.size).toBeGreaterThan(0);
  });

  it('devices() lists the names viewport_device accepts', async () => {
    const devices = await client.devices();
    expect(devices.length).toBeGreaterThan(20);
    const iphone = devices.find((d) => d.name === 'iphone_15_pro');
    expect(iphone).toMatchObject({ mobile: true, has_touch: true, viewport: { width: expect.any(Number), height: expect.any(Number) } });
  });
});

describe('takeJson (response_type=json)', () => {
  it('answers the capture’s facts and the file in base64', async (ctx) => {
    ctx.skip(!features.json, 'the server does not know response_type yet (DESIGN §4.2)');
    const result = await client.takeJson({ url: page() });
    expect(result).toMatchObject({ format: 'png', content_type: 'image/png', width: 1280, height: 800 });
    expect(result.request_id).toEqual(expect.any(String));
    const bytes = new Uint8Array(Buffer.from(result.data_base64 ?? '', 'base64'));
    expect(isPng(bytes)).toBe(true);
    expect(result.size).toBe(bytes.length);
  });

  it('adds the page’s metadata with metadata: true', async (ctx) => {
    ctx.skip(!features.json || !features.metadata, 'the server does not know response_type and metadata yet (DESIGN §4.2)');
    const result = await client.takeJson({ url: page(), metadata: true });
    expect(result.metadata).toMatchObject({ title: 'simple' });
  });
});

describe('signed links', () => {
  it('signedUrl builds a link the server accepts without the key, and refuses when tampered with or expired', async (ctx) => {
    ctx.skip(!features.signedLinks, 'GET /v1/status has no key.signing_secret yet: signed links are not on the server (DESIGN §4.2)');
    const signing = { keyId: status.key.id, signingSecret: status.key.signing_secret!, expires: Math.floor(Date.now() / 1000) + 300 };
    const link = await client.signedUrl({ url: page(), viewport_width: 800, viewport_height: 600 }, signing);
    expect(link).toMatch(/\/v1\/take\?url=.*&expires=\d+&access_key=[^&]+&signature=[0-9a-f]{64}$/);
    expect(link).not.toContain(shutter.apiKey);

    const ok = await fetch(link);
    expect(ok.status).toBe(200);
    const png = new Uint8Array(await ok.arrayBuffer());
    expect(pngSize(png)).toEqual({ width: 800, height: 600 });

    const tampered = await fetch(link.replace('viewport_width=800', 'viewport_width=801'));
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as { error: { code: string } }).error.code).toBe('signature_invalid');

    const expired = await client.signedUrl({ url: page() }, { ...signing, expires: Math.floor(Date.now() / 1000) - 60 });
    const late = await fetch(expired);
    expect(late.status).toBe(403);

    const unsigned = await fetch(link.replace(/&signature=.*$/, ''));
    expect(unsigned.status).toBe(401);
  });
});

describe('async jobs', () => {
  it('jobs.create queues a capture, jobs.wait follows it to the end, jobs.get reads it', async (ctx) => {
    ctx.skip(!features.async, 'the server does not know async yet (DESIGN §4.3)');
    const created = await client.jobs.create({ url: page(), viewport_width: 640, viewport_height: 480 });
    expect(created.status).toBe('queued');
    expect(created.job_id).toEqual(expect.any(String));
    const job = await client.jobs.wait(created.job_id, { timeoutMs: 50_000, intervalMs: 200 });
    expect(job.status).toBe('succeeded');
    expect(job.result).toMatchObject({ format: 'png', content_type: 'image/png' });
    const file = await fetch(job.result!.url);
    expect(pngSize(new Uint8Array(await file.arrayBuffer()))).toEqual({ width: 640, height: 480 });

    const again = await client.jobs.get(created.job_id);
    expect(again).toMatchObject({ job_id: created.job_id, status: 'succeeded' });
  });

  it('jobs.get of an unknown id is a 404 ShutterError', async (ctx) => {
    ctx.skip(!features.async, 'the server does not know async yet (DESIGN §4.3)');
    const e = (await rejectionOf(client.jobs.get('no-such-job'))) as ShutterError;
    expect(e).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('jobs.wait rejects with the job’s own error when it fails', async (ctx) => {
    ctx.skip(!features.async, 'the server does not know async yet (DESIGN §4.3)');
    const created = await client.jobs.create({ url: page('/missing.html'), fail_on_http_status: '404' });
    const e = (await rejectionOf(client.jobs.wait(created.job_id, { timeoutMs: 50_000, intervalMs: 200 }))) as ShutterError;
    expect(e).toBeInstanceOf(ShutterError);
    expect(e.code).not.toBe('timeout');
  });

  it('bulk queues a job per request over shared defaults, and refuses a bad entry whole', async (ctx) => {
    ctx.skip(!features.async || !features.bulk, 'POST /v1/bulk is not on the server yet (DESIGN §4.3)');
    const batch = await client.bulk({
      defaults: { viewport_width: 640, viewport_height: 480 },
      requests: [{ url: page() }, { url: page('/bands.html') }],
    });
    expect(batch.jobs).toHaveLength(2);
    const jobs = await Promise.all(batch.jobs.map((j) => client.jobs.wait(j.job_id, { timeoutMs: 50_000, intervalMs: 200 })));
    expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded']);

    const e = (await rejectionOf(client.bulk({ requests: [{ url: page() }, { url: page(), viewport_width: 5 }] }))) as ShutterError;
    expect(e.status).toBe(400);
    expect(`${e.message} ${JSON.stringify(e.details)}`).toMatch(/\b1\b/);
  });
});

describe('webhooks', () => {
  it('a webhook signed by the server passes verifyWebhook; a tampered body does not', { timeout: 90_000 }, async (ctx) => {
    ctx.skip(!features.webhooks || !features.signedLinks, 'the server has no webhook_url or signing secrets yet (DESIGN §4.3)');
    const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = receiver.address() as AddressInfo;
      const created = await client.jobs.create({ url: page(), webhook_url: `http://127.0.0.1:${port}/hook`, external_id: 'client-ext-1' });
      const deadline = Date.now() + 60_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(received.length).toBeGreaterThan(0);
      const { headers, body } = received[0]!;
      const header = headers['x-shutter-signature'] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}/);

      const secret = status.key.signing_secret!;
      const job = await verifyWebhook(body, header, secret);
      expect(job).toMatchObject({ job_id: created.job_id, external_id: 'client-ext-1', status: 'succeeded' });
      expect((await client.verifyWebhook(body.toString('utf8'), header, secret)).job_id).toBe(created.job_id);

      const tampered = Buffer.from(body.toString('utf8').replace('succeeded', 'failed'));
      expect(await rejectionOf(verifyWebhook(tampered, header, secret))).toMatchObject({ code: 'signature_invalid' });
      expect(await rejectionOf(verifyWebhook(body, header, `${secret}x`))).toMatchObject({ code: 'signature_invalid' });
    } finally {
      await new Promise<void>((resolve) => {
        receiver.close(() => resolve());
        receiver.closeAllConnections();
      });
    }
  });
});
