import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { BLUE, CYAN, GREEN, MAGENTA, nameOf, pixels, RED, startService, WHITE, YELLOW, type Service } from './harness.js';

/**
 * End to end through the real Chromium: options in over HTTP (inject), image bytes out,
 * checked by decoding them with sharp.
 */

let service: Service;
let fixtures: FixtureServer;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([startFixtureServer(), startService()]);
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

type Query = Record<string, string | string[]>;

function toQueryString(query: Query): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, v);
  }
  return search.toString();
}

const page = (name: string) => `${fixtures.baseUrl}/${name}`;

async function take(query: Query): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'GET',
    url: `/v1/take?${toQueryString(query)}`,
    headers: { apikey: service.apiKey },
  });
}

/** A capture that must succeed: fails with the error body otherwise. */
async function takeOk(query: Query): Promise<LightMyRequestResponse> {
  const res = await take(query);
  expect(res.statusCode, res.statusCode === 200 ? '' : res.body).toBe(200);
  return res;
}

async function colourAt(body: Buffer, x: number, y: number): Promise<string> {
  return nameOf((await pixels(body)).at(x, y));
}

describe('image size', () => {
  it('captures a png of 1280×800 by default, with the page drawn where the page puts it', async () => {
    const res = await takeOk({ url: page('simple.html') });
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.headers['content-disposition']).toMatch(/^inline; filename="?screenshot\.png"?/);
    expect(res.headers['server-timing']).toMatch(/navigate;dur=[\d.]+.*wait;dur=.*capture;dur=.*encode;dur=/);
    expect(res.headers['x-shutter-truncated']).toBeUndefined();

    const body = res.rawPayload;
    expect(body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const meta = await sharp(body).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([1280, 800]);

    const px = await pixels(body);
    expect(nameOf(px.at(100, 100))).toBe('red');
    expect(nameOf(px.at(300, 100))).toBe('green');
    expect(nameOf(px.at(100, 300))).toBe('blue');
    expect(nameOf(px.at(300, 300))).toBe('white');
    expect(nameOf(px.at(1279, 799))).toBe('white');
    // Exact colours in a lossless format.
    expect(px.at(100, 100)).toEqual(RED);
    expect(px.at(300, 100)).toEqual(GREEN);
    expect(px.at(100, 300)).toEqual(BLUE);
    expect(px.at(600, 600)).toEqual(WHITE);
  });

  it('device_scale_factor=2 doubles both dimensions (2560×1600) and scales the content', async () => {
    const res = await takeOk({ url: page('simple.html'), device_scale_factor: '2' });
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([2560, 1600]);
    // The 200 px red square now covers 400 device px.
    expect(nameOf(px.at(390, 390))).toBe('red');
    expect(nameOf(px.at(410, 100))).toBe('green');
    expect(nameOf(px.at(790, 390))).toBe('green');
    expect(nameOf(px.at(100, 410))).toBe('blue');
    expect(nameOf(px.at(810, 100))).toBe('white');
  });

  it('viewport_width and viewport_height set the image size', async () => {
    const res = await takeOk({ url: page('simple.html'), viewport_width: '640', viewport_height: '480' });
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([640, 480]);
    expect(nameOf(px.at(100, 100))).toBe('red');
    expect(nameOf(px.at(639, 479))).toBe('white');
  });

  it('full_page captures the whole 3000 px page, each band once and in order', async () => {
    const res = await takeOk({ url: page('tall.html'), full_page: '1' });
    expect(res.headers['x-shutter-truncated']).toBeUndefined();
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([1280, 3000]);
    const bands = [RED, GREEN, BLUE, YELLOW, CYAN, MAGENTA].map((c) => nameOf(c));
    for (let i = 0; i < bands.length; i++) {
      for (const y of [i * 500 + 5, i * 500 + 250, i * 500 + 494]) {
        for (const x of [0, 640, 1279]) {
          expect(nameOf(px.at(x, y)), `band ${i} at (${x}, ${y})`).toBe(bands[i]);
        }
      }
    }
  });

  it('full_page combines with device_scale_factor', async () => {
    const res = await takeOk({ url: page('tall.html'), full_page: 'true', device_scale_factor: '2', viewport_width: '400' });
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([800, 6000]);
    expect(nameOf(px.at(400, 500))).toBe('red');
    expect(nameOf(px.at(400, 5500))).toBe('magenta');
  });

  it('without full_page a tall page is cut at the viewport', async () => {
    const res = await takeOk({ url: page('tall.html') });
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([1280, 800]);
    expect(nameOf(px.at(10, 400))).toBe('red');
    expect(nameOf(px.at(10, 700))).toBe('green');
  });
});

describe('formats', () => {
  /** Detail that lossy quality settings visibly change. */
  const detailedHtml = `<!doctype html><html><body style="margin:0">
    <div style="width:1280px;height:800px;background:
      repeating-linear-gradient(45deg, rgb(200,30,30) 0 7px, rgb(30,30,200) 7px 13px),
      linear-gradient(90deg, #fff, #000);background-blend-mode:multiply"></div>
    </body></html>`;

  async function post(payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: service.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    expect(res.statusCode, res.statusCode === 200 ? '' : res.body).toBe(200);
    return res;
  }

  it('jpg: JPEG bytes, image/jpeg, and a lower quality gives a smaller file', async () => {
    const high = await post({ html: detailedHtml, format: 'jpg', quality: 95 });
    const low = await post({ html: detailedHtml, format: 'jpeg', quality: 10 });
    for (const res of [high, low]) {
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-disposition']).toMatch(/screenshot\.jpg/);
      expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      const meta = await sharp(res.rawPayload).metadata();
      expect(meta.format).toBe('jpeg');
      expect([meta.width, meta.height]).toEqual([1280, 800]);
    }
    expect(low.rawPayload.length).toBeLessThan(high.rawPayload.length * 0.7);
  });

  it('jpg keeps solid colours close to the page', async () => {
    const res = await takeOk({ url: page('simple.html'), format: 'jpg', quality: '90' });
    const px = await pixels(res.rawPayload);
    expect(nameOf(px.at(100, 100), 40)).toBe('red');
    expect(nameOf(px.at(100, 300), 40)).toBe('blue');
  });

  it('webp: RIFF/WEBP bytes, image/webp, the viewport size, and quality changes the size', async () => {
    const high = await post({ html: detailedHtml, format: 'webp', quality: 95, viewport_width: 1000, viewport_height: 700 });
    const low = await post({ html: detailedHtml, format: 'webp', quality: 10, viewport_width: 1000, viewport_height: 700 });
    for (const res of [high, low]) {
      expect(res.headers['content-type']).toBe('image/webp');
      const body = res.rawPayload;
      expect(body.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(body.subarray(8, 12).toString('latin1')).toBe('WEBP');
      const meta = await sharp(body).metadata();
      expect(meta.format).toBe('webp');
      expect([meta.width, meta.height]).toEqual([1000, 700]);
    }
    expect(low.rawPayload.length).toBeLessThan(high.rawPayload.length);
  });

  it('gif: GIF89a bytes, image/gif, the viewport size and the page colours', async () => {
    const res = await takeOk({ url: page('simple.html'), format: 'gif', viewport_width: '800', viewport_height: '600' });
    expect(res.headers['content-type']).toBe('image/gif');
    expect(res.rawPayload.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const meta = await sharp(res.rawPayload).metadata();
    expect(meta.format).toBe('gif');
    expect([meta.width, meta.height]).toEqual([800, 600]);
    const px = await pixels(res.rawPayload);
    expect(nameOf(px.at(100, 100), 40)).toBe('red');
    expect(nameOf(px.at(300, 100), 40)).toBe('green');
    expect(nameOf(px.at(100, 300), 40)).toBe('blue');
    expect(nameOf(px.at(700, 500), 40)).toBe('white');
  });
});

describe('html input', () => {
  const html =
    '<!doctype html><html><body style="margin:0;background:rgb(0,0,255)">' +
    '<div style="width:100px;height:100px;background:rgb(255,0,0)"></div></body></html>';

  it('POST with JSON html renders it', async () => {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: service.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ html, viewport_width: 400, viewport_height: 300 }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([400, 300]);
    expect(px.at(50, 50)).toEqual(RED);
    expect(px.at(200, 200)).toEqual(BLUE);
  });

  it('POST with form-encoded html renders it', async () => {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: service.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ html, format: 'png', viewport_width: '300', viewport_height: '200' }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([300, 200]);
    expect(nameOf(px.at(50, 50))).toBe('red');
    expect(nameOf(px.at(250, 150))).toBe('blue');
  });
});

describe('page preparation', () => {
  it('the hide fixture shows both red boxes when nothing is hidden (control)', async () => {
    const res = await takeOk({ url: page('hide.html'), delay: '1' });
    const body = res.rawPayload;
    expect(await colourAt(body, 100, 100)).toBe('red');
    expect(await colourAt(body, 400, 100)).toBe('red');
    expect(await colourAt(body, 700, 100)).toBe('blue');
  });

  it('hide_selectors hides matching elements, including one a script adds after load', async () => {
    const res = await takeOk({ url: page('hide.html'), 'hide_selectors[]': ['.ad'], delay: '1' });
    const body = res.rawPayload;
    expect(await colourAt(body, 100, 100)).toBe('white');
    expect(await colourAt(body, 400, 100)).toBe('white');
    // Elements that do not match stay.
    expect(await colourAt(body, 700, 100)).toBe('blue');
  });

  it('hide_selectors accepts several selectors, each applied on its own', async () => {
    const res = await takeOk({ url: page('hide.html'), hide_selectors: ['#early', '#keep'] });
    const body = res.rawPayload;
    expect(await colourAt(body, 100, 100)).toBe('white');
    expect(await colourAt(body, 700, 100)).toBe('white');
  });

  it('styles is injected after the page and changes a colour', async () => {
    const control = await takeOk({ url: page('styles.html') });
    expect(await colourAt(control.rawPayload, 150, 150)).toBe('red');

    const res = await takeOk({ url: page('styles.html'), styles: '#box { background: rgb(0, 255, 0); }' });
    const px = await pixels(res.rawPayload);
    expect(px.at(150, 150)).toEqual(GREEN);
    expect(px.at(400, 400)).toEqual(WHITE);
  });
});

describe('waiting', () => {
  it('without delay the delay fixture is still red (control)', async () => {
    const res = await takeOk({ url: page('delay.html') });
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('red');
  });

  it('delay waits before capturing: the page has turned green', async () => {
    const started = performance.now();
    const res = await takeOk({ url: page('delay.html'), delay: '1.5' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('green');
  });

  it('wait_until=load does not wait for a fetch started after load: red', async () => {
    const res = await takeOk({ url: page('networkidle.html'), wait_until: 'load' });
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('red');
  });

  it('wait_until=networkidle0 waits for the slow fetch to finish: green', async () => {
    const started = performance.now();
    const res = await takeOk({ url: page('networkidle.html'), wait_until: 'networkidle0' });
    // The fetch takes 1.5 s, then 500 ms of quiet.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('green');
    expect(fixtures.requests).toContain('/slow?ms=1500');
  });

  it('wait_until=networkidle (alias of networkidle0) waits too', async () => {
    const res = await takeOk({ url: page('networkidle.html'), wait_until: 'networkidle' });
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('green');
  });

  it('wait_until=networkidle2 tolerates the one open request: red', async () => {
    const res = await takeOk({ url: page('networkidle.html'), wait_until: 'networkidle2' });
    expect(await colourAt(res.rawPayload, 640, 400)).toBe('red');
  });
});

describe('full-page height cap', () => {
  let capped: Service;

  beforeAll(async () => {
    capped = await startService({ env: { SHUTTER_MAX_FULL_PAGE_HEIGHT: '1200' } });
  });

  afterAll(async () => {
    await capped?.close();
  });

  it('cuts a page taller than the cap at the cap, says so, and does not repeat content', async () => {
    const res = await capped.app.inject({
      method: 'GET',
      url: `/v1/take?${toQueryString({ url: page('tall.html'), full_page: '1' })}`,
      headers: { apikey: capped.apiKey },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-shutter-truncated']).toBe('height');
    const px = await pixels(res.rawPayload);
    expect([px.width, px.height]).toEqual([1280, 1200]);
    expect(nameOf(px.at(640, 250))).toBe('red');
    expect(nameOf(px.at(640, 750))).toBe('green');
    expect(nameOf(px.at(640, 1100))).toBe('blue');
    expect(nameOf(px.at(640, 1199))).toBe('blue');
  });
});
