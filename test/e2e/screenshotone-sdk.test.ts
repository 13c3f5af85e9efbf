import type { AddressInfo } from 'node:net';
import * as screenshotone from 'screenshotone-api-sdk';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

/**
 * ScreenshotOne's own published SDK (screenshotone-api-sdk from npm), pointed at Shutter with
 * `<base>/v1` as its base URL, the key's id as access key and its signing secret as secret key
 * (DESIGN.md §4.2, docs/migrating-from-screenshotone.md): its signed links and its take() work.
 */
let fixture: FixtureServer;
let service: Service;
let base = '';

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({ store: true });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

async function sdkClient() {
  const status = await (await fetch(`${base}/v1/status`, { headers: { apikey: service.apiKey } })).json();
  return new screenshotone.Client(status.key.id, status.key.signing_secret, `${base}/v1`);
}

describe('ScreenshotOne’s SDK against Shutter', () => {
  it('its signed take URL captures (options both share: format, image_quality, viewport, cache), and a changed one is refused', async () => {
    const client = await sdkClient();
    const options = screenshotone.TakeOptions.url(`${fixture.baseUrl}/simple.html`)
      .format('jpg')
      .imageQuality(70)
      .viewportWidth(800)
      .viewportHeight(600)
      .cache(true)
      .cacheTtl(3600);
    const url = await client.generateSignedTakeURL(options);
    expect(url.startsWith(`${base}/v1/take?`)).toBe(true);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-shutter-cache')).toBe('MISS');
    expect(await sharp(Buffer.from(await first.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 800, height: 600 });
    const again = await fetch(url);
    expect(again.headers.get('x-shutter-cache')).toBe('HIT');
    await again.arrayBuffer();
    const altered = await fetch(url.replace('image_quality=70', 'image_quality=71'));
    expect(altered.status).toBe(403);
    expect((await altered.json()).error.code).toBe('signature_invalid');
  });

  it('its take() returns the image', async () => {
    const client = await sdkClient();
    const blob = await client.take(screenshotone.TakeOptions.url(`${fixture.baseUrl}/simple.html`).format('png'));
    expect(blob.type).toBe('image/png');
    expect((await sharp(Buffer.from(await blob.arrayBuffer())).metadata()).width).toBe(1280);
  });
});
