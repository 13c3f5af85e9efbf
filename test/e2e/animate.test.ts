import { readdir, readFile } from 'node:fs/promises';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EASING } from '../../src/capture/render/scroll-plan.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { greyFrames, probe } from '../helpers/video.js';
import { startService, type Service } from './harness.js';

/**
 * /v1/animate end to end: the real Chromium and the real ffmpeg, the videos read back with ffprobe
 * and their frames decoded with ffmpeg. Small viewports, low fps and short durations keep it quick.
 */

let service: Service;
let fixtures: FixtureServer;

beforeAll(async () => {
  // Only the fixture server's address is allowed: any other private address is a forbidden target.
  [fixtures, service] = await Promise.all([startFixtureServer(), startService({ allowedPrivateNetworks: '127.0.0.1/32' })]);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

const page = (name: string) => `${fixtures.baseUrl}/animate/${name}`;

async function animate(query: Record<string, string | number | boolean>): Promise<LightMyRequestResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return service.app.inject({ method: 'GET', url: `/v1/animate?${search.toString()}`, headers: { apikey: service.apiKey } });
}

async function animateOk(query: Record<string, string | number | boolean>): Promise<Buffer> {
  const res = await animate(query);
  expect(res.statusCode, res.statusCode === 200 ? '' : res.body).toBe(200);
  return res.rawPayload;
}

/** The mean grey of a block at the frame's top left. */
function topLeftGrey(frame: Buffer, width: number): number {
  let sum = 0;
  for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) sum += frame[y * width + x]!;
  return sum / 256;
}

/** ffmpeg processes this test process started that are still running. */
async function ffmpegChildren(): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const [, name, rest] = /^\d+ \((.*)\) (.*)$/.exec(stat) ?? [];
    if (name === 'ffmpeg' && Number(rest?.split(' ')[1]) === process.pid) found.push(pid);
  }
  return found;
}

// gradient.html: a ramp from black to white over 2040 px; viewport 320×200, so the page scrolls 0–1840.
const RAMP = 2040;
const VIEW = { viewport_width: 320, viewport_height: 200 };
/** Where the viewport's top is, read from the grey at the top left (the block's middle is 7.5 px below it). */
const scrollOf = (frame: Buffer) => (topLeftGrey(frame, VIEW.viewport_width) / 255) * RAMP - 7.5;
/** 8 px per grey level; a lossy codec and the gradient's dither move a few levels. */
const TOLERANCE = 40;

describe('scenario=scroll', () => {
  it('is an mp4 (H.264, faststart) of exactly duration × fps frames, scrolled where the easing says, always down', async () => {
    const fps = 10;
    const video = await animateOk({
      url: page('gradient.html'),
      ...VIEW,
      scenario: 'scroll',
      duration: 3,
      fps,
      scroll_by: 600,
      scroll_delay: 500,
    });
    const info = await probe(video);
    expect(info).toMatchObject({ codec: 'h264', width: 320, height: 200, rate: '10/1', frames: 30 });
    expect(Math.abs(info.duration - 3)).toBeLessThanOrEqual(1 / fps);
    // faststart: the index (moov) comes before the frames (mdat), so a browser plays before the end arrives.
    expect(video.indexOf('moov')).toBeLessThan(video.indexOf('mdat'));

    const positions = (await greyFrames(video, 320, 200)).map(scrollOf);
    expect(positions).toHaveLength(30);
    // Steps of 600 px: 1000 ms moving along ease_in_out_quad, then 500 ms of rest.
    const expected = (ms: number) => {
      const step = Math.floor(ms / 1500);
      const within = Math.min(1, (ms - step * 1500) / 1000);
      return Math.min(1840, step * 600 + 600 * EASING.ease_in_out_quad(within));
    };
    positions.forEach((y, i) => expect(Math.abs(y - expected(i * 100)), `frame ${i}: ${y.toFixed(0)} px`).toBeLessThanOrEqual(TOLERANCE));
    // A quarter into the first step the quad curve is at 12.5 %, where linear would be at 25 % (150 px).
    expect(positions[3]!).toBeLessThan(120);
    for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThanOrEqual(positions[i - 1]! - 10);
  }, 120_000);

  it('scroll_back returns to the top; scroll_till_selector stops with the element in view', async () => {
    const back = await animateOk({
      url: page('gradient.html'),
      ...VIEW,
      scenario: 'scroll',
      duration: 3,
      fps: 5,
      scroll_by: 5000,
      scroll_delay: 300,
      scroll_easing: 'linear',
      scroll_back: true,
    });
    const positions = (await greyFrames(back, 320, 200)).map(scrollOf);
    // Down to 1840 in 1 s, 300 ms of rest, back up in 1 s (by 2.3 s), then at rest at the top.
    expect(positions[6]!).toBeGreaterThan(1840 - TOLERANCE);
    expect(positions.at(-1)!).toBeLessThan(TOLERANCE);

    const till = await animateOk({
      url: page('gradient.html'),
      ...VIEW,
      scenario: 'scroll',
      duration: 2,
      fps: 5,
      scroll_till_selector: '#ramp',
    });
    // #ramp is taller than the viewport: the scroll stops with its top at the viewport's top.
    const tillPositions = (await greyFrames(till, 320, 200)).map(scrollOf);
    expect(Math.max(...tillPositions)).toBeLessThan(TOLERANCE);
  }, 120_000);
});

describe('scenario=default', () => {
  it('records a CSS animation as it plays, 10 px per 100 ms of video whatever the machine’s load (webm, VP9)', async () => {
    const video = await animateOk({ url: page('moving-box.html'), ...VIEW, format: 'webm', duration: 1, fps: 10 });
    const info = await probe(video);
    expect(info).toMatchObject({ codec: 'vp9', width: 320, height: 200, frames: 10 });
    expect(Math.abs(info.duration - 1)).toBeLessThanOrEqual(0.1);
    // The box's left edge: the first dark column in the row through its middle (y = 40).
    const lefts = (await greyFrames(video, 320, 200)).map((frame) => {
      const row = frame.subarray(40 * 320, 41 * 320);
      return row.findIndex((v) => v < 128);
    });
    const moves = lefts.slice(1).map((x, i) => x - lefts[i]!);
    for (const move of moves) expect(Math.abs(move - 10), `moves ${JSON.stringify(lefts)}`).toBeLessThanOrEqual(2);
  }, 120_000);

  it('makes an animated gif with its own palette; image_width scales it', async () => {
    const video = await animateOk({ url: page('moving-box.html'), ...VIEW, format: 'gif', duration: 1, fps: 5, image_width: 160 });
    expect(video.subarray(0, 6).toString()).toBe('GIF89a');
    const info = await probe(video);
    expect(info).toMatchObject({ codec: 'gif', width: 160, height: 100, frames: 5 });
  }, 120_000);
});

describe('refusals', () => {
  const error = (res: LightMyRequestResponse) =>
    res.json<{ error: { code: string; details: { parameter: string; code?: string }[] } }>().error;

  it('names bad values and options that do not apply, all in one 400', async () => {
    const res = await animate({
      url: page('gradient.html'),
      format: 'gif',
      fps: 20,
      duration: 31,
      full_page: true,
      quality: 50,
      scroll_by: 100,
    });
    expect(res.statusCode).toBe(400);
    const { details } = error(res);
    const named = (parameter: string) => details.find((d) => d.parameter === parameter)?.code;
    expect(named('full_page')).toBe('parameter_not_applicable');
    expect(named('quality')).toBe('parameter_not_applicable');
    expect(named('duration')).toBe('invalid_parameter');
    // scroll_by without scenario=scroll does not apply.
    expect(named('scroll_by')).toBe('parameter_not_applicable');

    const gif = await animate({ url: page('gradient.html'), format: 'gif', fps: 20 });
    expect(gif.statusCode).toBe(400);
    expect(error(gif).details).toEqual([expect.objectContaining({ parameter: 'fps', code: 'invalid_parameter' })]);
    expect((await animate({ url: page('gradient.html'), format: 'mov' })).statusCode).toBe(400);
    expect((await animate({ url: page('gradient.html'), scenario: 'zoom' })).statusCode).toBe(400);
  });

  it('refuses a forbidden target with 403 before recording anything', async () => {
    const res = await animate({ url: 'http://10.255.255.1/', duration: 1, fps: 1 });
    expect(res.statusCode, res.body).toBe(403);
    expect(error(res).code).toBe('target_forbidden');
  });

  it('a recording cut by its timeout is 504 capture_timeout, leaves no ffmpeg behind, and the next one works', async () => {
    // 150 frames of 5760×3240 px (1920×1080 at scale 3) cannot be painted in the 6 s left: the timeout
    // ends it mid-recording, the moment ffmpeg is stopped twice (its signal, then the error path).
    // Vitest fails the run on an unhandled rejection, which that once was.
    const res = await animate({
      url: page('gradient.html'),
      viewport_width: 1920,
      viewport_height: 1080,
      device_scale_factor: 3,
      scenario: 'scroll',
      duration: 5,
      fps: 30,
      timeout: 6,
    });
    expect(res.statusCode, res.body).toBe(504);
    expect(error(res).code).toBe('capture_timeout');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await ffmpegChildren()).toEqual([]);
    const next = await animateOk({ url: page('moving-box.html'), ...VIEW, duration: 1, fps: 2 });
    expect((await probe(next)).frames).toBe(2);
  }, 120_000);

  it('a scroll_till_selector that matches nothing is 422 selector_not_found', async () => {
    const res = await animate({
      url: page('gradient.html'),
      ...VIEW,
      scenario: 'scroll',
      duration: 1,
      fps: 2,
      scroll_till_selector: '#nowhere',
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(error(res).code).toBe('selector_not_found');
  }, 60_000);
});
