import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, StubEngine, type TestApp } from '../helpers/stub-engine.js';

/** /v1/animate over HTTP with a stub engine: what reaches the engine, and the answers around it. */

class EngineWithoutFfmpeg extends StubEngine {
  animationReady(): boolean {
    return false;
  }
}

let t: TestApp | undefined;

afterEach(async () => {
  await t?.app.close();
  t?.keys.close();
  t = undefined;
});

describe('/v1/animate', () => {
  it('GET and POST reach the take use case as an animation, answered as a video file', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/animate?url=https://example.com/&scenario=scroll&scroll_back=1&duration=2&fps=10',
      headers: { apikey: t.key },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['content-disposition']).toMatch(/screenshot\.mp4/);
    expect(t.engine.last).toMatchObject({ format: 'mp4', animation: { scenario: 'scroll', scroll_back: true, duration: 2, fps: 10 } });

    const post = await t.app.inject({
      method: 'POST',
      url: '/v1/animate',
      headers: { apikey: t.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ html: '<p>hi</p>', format: 'webm', attachment_name: 'clip' }),
    });
    expect(post.statusCode, post.body).toBe(200);
    expect(post.headers['content-type']).toBe('video/webm');
    expect(post.headers['content-disposition']).toMatch(/attachment; filename="?clip\.webm"?/);
    // One animation, one capture of quota.
    expect(t.engine.calls).toHaveLength(2);
  });

  it('answers 503 ffmpeg_unavailable without ffmpeg, charging nothing; /readyz says so and stays ready', async () => {
    t = await buildTestApp({ engine: new EngineWithoutFfmpeg() });
    const res = await t.app.inject({ method: 'GET', url: '/v1/animate?url=https://example.com/', headers: { apikey: t.key } });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('ffmpeg_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect(t.engine.calls).toHaveLength(0);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', ffmpeg: false });
  });

  it('bad values are a 400 before the engine is asked', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/animate?url=https://example.com/&selector=%23a&fps=99',
      headers: { apikey: t.key },
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json<{ error: { details: { parameter: string }[] } }>()
        .error.details.map((d) => d.parameter)
        .sort(),
    ).toEqual(['fps', 'selector']);
    expect(t.engine.calls).toHaveLength(0);
  });
});
