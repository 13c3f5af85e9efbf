import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { probe } from '../helpers/video.js';
import { startService, type Service } from './harness.js';

/**
 * SHUTTER_FFMPEG_PATH (issue 36): the ffmpeg the operator names is the one animations run, and one
 * that is not there is a 503 ffmpeg_unavailable at the route (nothing charged) and ffmpeg: false in
 * /readyz, while every other capture still works.
 */

let dir: string;
let fixtures: FixtureServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-ffmpeg-path-'));
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await stopFixtureServer(fixtures);
  await rm(dir, { recursive: true, force: true });
});

const used = async (service: Service) =>
  (
    (await service.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: service.apiKey } })).json() as {
      usage: { used: number };
    }
  ).usage.used;

describe.each([
  ['a path where there is no file', () => join(dir, 'missing', 'ffmpeg')],
  ['a file that is not executable', () => join(dir, 'not-executable')],
])('SHUTTER_FFMPEG_PATH naming %s', (_what, path) => {
  let service: Service;
  beforeAll(async () => {
    await writeFile(join(dir, 'not-executable'), '#!/bin/sh\nexit 0\n');
    service = await startService({ env: { SHUTTER_FFMPEG_PATH: path() } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('answers /v1/animate 503 ffmpeg_unavailable without charging, says ffmpeg: false in /readyz, and still takes screenshots', async () => {
    const before = await used(service);
    const res = await service.app.inject({
      method: 'GET',
      url: `/v1/animate?url=${encodeURIComponent(`${fixtures.baseUrl}/animate/moving-box.html`)}&duration=1&fps=2`,
      headers: { apikey: service.apiKey },
    });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('ffmpeg_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect(await used(service)).toBe(before);

    const ready = await service.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', ffmpeg: false });

    const take = await service.app.inject({
      method: 'GET',
      url: `/v1/take?url=${encodeURIComponent(`${fixtures.baseUrl}/animate/moving-box.html`)}&viewport_width=320&viewport_height=200`,
      headers: { apikey: service.apiKey },
    });
    expect(take.statusCode, take.body).toBe(200);
  }, 60_000);
});

describe('SHUTTER_FFMPEG_PATH naming an ffmpeg of its own', () => {
  let service: Service;
  const log = () => join(dir, 'calls.log');

  beforeAll(async () => {
    // A wrapper that notes each call, then runs Debian's ffmpeg: the log shows which binary encoded.
    const wrapper = join(dir, 'my-ffmpeg');
    await writeFile(wrapper, `#!/bin/sh\necho "$@" >> '${log()}'\nexec /usr/bin/ffmpeg "$@"\n`);
    await chmod(wrapper, 0o755);
    service = await startService({ env: { SHUTTER_FFMPEG_PATH: wrapper } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('encodes with that binary', async () => {
    const ready = await service.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toMatchObject({ ffmpeg: true });
    const res = await service.app.inject({
      method: 'GET',
      url: `/v1/animate?url=${encodeURIComponent(`${fixtures.baseUrl}/animate/moving-box.html`)}&viewport_width=320&viewport_height=200&duration=1&fps=3&format=webm`,
      headers: { apikey: service.apiKey },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await probe(res.rawPayload)).toMatchObject({ codec: 'vp9', frames: 3 });
    const calls = (await readFile(log(), 'utf8')).trim().split('\n');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/-framerate 3 .*libvpx-vp9/);
  }, 120_000);
});
