import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICES } from '../../src/options/devices.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { nameOf, pixels, startService, type Service } from './harness.js';

/**
 * Devices and emulation in real Chromium: a probe page writes what it is told (user agent, time
 * zone, language, colour scheme, motion, media, touch, viewport, position) into its DOM, read back
 * through format=markdown; colours and image sizes are read from the pixels.
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

const take = (query: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });

/** The probe's facts as name → value. */
async function facts(query: Record<string, string> = {}): Promise<Record<string, string>> {
  const res = await take({ url: `${fixtures.baseUrl}/emulation/probe.html`, format: 'markdown', ...query });
  expect(res.statusCode, res.payload).toBe(200);
  const text = res.payload.replace(/\\([\\_*[\]()#+.!-])/g, '$1'); // Markdown's escapes
  return Object.fromEntries([...text.matchAll(/^[-*]\s+(\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!.trim()]));
}

describe('emulation', () => {
  it('by default: a desktop Chrome, en-US, light, screen media, no touch', async () => {
    const f = await facts();
    expect(f.ua).toMatch(/X11; Linux x86_64.*Chrome\//);
    expect(f).toMatchObject({ lang: 'en-US', dark: 'false', reduced: 'false', print: 'false', touch: 'false', width: '1280' });
  });

  it('time_zone, locale, dark_mode, reduced_motion, media_type and user_agent reach the page', async () => {
    const f = await facts({
      time_zone: 'Asia/Tokyo',
      locale: 'de-DE',
      dark_mode: '1',
      reduced_motion: '1',
      media_type: 'print',
      user_agent: 'ShutterTest/1.0 (probe)',
    });
    expect(f, JSON.stringify(f)).toMatchObject({
      tz: 'Asia/Tokyo',
      lang: 'de-DE',
      dark: 'true',
      reduced: 'true',
      print: 'true',
      ua: 'ShutterTest/1.0 (probe)',
    });
  });

  it('geolocation: the position is granted and reported', async () => {
    const f = await facts({ geolocation_latitude: '52.52', geolocation_longitude: '13.405', geolocation_accuracy: '25' });
    expect(f.geo).toBe('52.52,13.405,25');
  });

  it('dark_mode flips the page’s colours in the pixels', async () => {
    const url = `${fixtures.baseUrl}/emulation/probe.html`;
    const light = await pixels((await take({ url, viewport_width: '400', viewport_height: '300' })).rawPayload);
    const dark = await pixels((await take({ url, viewport_width: '400', viewport_height: '300', dark_mode: 'true' })).rawPayload);
    expect(nameOf(light.at(390, 290))).toBe('white');
    expect(dark.at(390, 290)).toEqual([0, 0, 0]);
  });

  it('viewport_device: the device’s viewport, pixel ratio, user agent, mobile and touch; landscape swaps', async () => {
    const device = DEVICES.get('pixel_7')!;
    const url = `${fixtures.baseUrl}/emulation/probe.html`;
    const f = await facts({ viewport_device: 'pixel_7' });
    expect(f).toMatchObject({ ua: device.user_agent, touch: 'true', coarse: 'true', width: String(device.viewport.width) });
    expect(Number(f.dpr)).toBeCloseTo(device.device_scale_factor);

    const shot = await take({ url, viewport_device: 'pixel_7' });
    expect(shot.statusCode, shot.payload).toBe(200);
    const image = await pixels(shot.rawPayload);
    expect([image.width, image.height]).toEqual([
      Math.round(device.viewport.width * device.device_scale_factor),
      Math.round(device.viewport.height * device.device_scale_factor),
    ]);
    const landscape = await pixels((await take({ url, viewport_device: 'pixel_7', viewport_landscape: '1' })).rawPayload);
    expect([landscape.width, landscape.height]).toEqual([image.height, image.width]);
  });

  it('explicit values override the device’s', async () => {
    const f = await facts({ viewport_device: 'iphone_15_pro', viewport_width: '500', user_agent: 'Mine/2', viewport_has_touch: '0' });
    expect(f).toMatchObject({ width: '500', ua: 'Mine/2', touch: 'false' });
  });

  it('reduced_motion pauses CSS animations', async () => {
    const url = `${fixtures.baseUrl}/emulation/animated.html`;
    // delay: the page's 20 ms timer writes the state after Shutter's steps ran.
    const paused = await take({ url, format: 'markdown', reduced_motion: '1', delay: '0.2' });
    expect(paused.payload).toContain('play-state=paused');
    const running = await take({ url, format: 'markdown', delay: '0.2' });
    expect(running.payload).toContain('play-state=running');
  });
});

describe('Content-Security-Policy', () => {
  const url = () =>
    `${fixtures.baseUrl}/emulation/csp.html?csp=${encodeURIComponent("default-src 'self'; style-src 'self'; script-src 'none'")}`;

  it('hide_selectors and styles apply on a strict-CSP page without bypass_csp', async () => {
    const res = await take({
      url: url(),
      viewport_width: '400',
      viewport_height: '300',
      hide_selectors: '#ad',
      styles: 'body { background: rgb(0, 0, 255) }',
    });
    expect(res.statusCode, res.payload).toBe(200);
    const image = await pixels(res.rawPayload);
    expect(nameOf(image.at(20, 20))).toBe('blue'); // #ad (red) hidden, the caller's background shown
  });

  it('the page’s own inline script stays blocked unless bypass_csp=1', async () => {
    const blocked = await take({ url: url(), format: 'markdown' });
    expect(blocked.payload).toContain('inline script blocked');
    const bypassed = await take({ url: url(), format: 'markdown', bypass_csp: '1' });
    expect(bypassed.payload).toContain('inline script ran');
  });
});
