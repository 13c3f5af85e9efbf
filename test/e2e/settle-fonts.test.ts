import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

// Issue 35: the wait for web fonts (settle) buys a drawn output its glyphs; markdown and html say the
// same words whatever the font, so they alone do not wait. Both branches, on a page whose web font,
// asked for after load, never arrives (/hang): a drawn capture waits for it up to FONTS_MAX_MS (3 s).

let service: Service;
let fixture: FixtureServer;

beforeAll(async () => {
  [service, fixture] = await Promise.all([startService(), startFixtureServer()]);
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const page = () => `<!doctype html><html><head><meta charset="utf-8"><style>p { font-family: Slow, serif; }</style></head>
<body><h1>Fonts</h1><p>Words that need a font.</p>
<script>addEventListener('load', () => { const face = new FontFace('Slow', 'url(${fixture.baseUrl}/hang)'); document.fonts.add(face); face.load().catch(() => {}); });</script>
</body></html>`;

/** The capture's `wait` phase (Server-Timing), which holds the font wait. */
const waitMs = async (query: Record<string, string>) => {
  const res = await service.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { html: page(), ...query },
    headers: { apikey: service.apiKey },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const wait = /(?:^|,\s*)wait;dur=([\d.]+)/.exec(String(res.headers['server-timing']));
  return { wait: Number(wait?.[1]), res };
};

describe('the wait for web fonts', () => {
  it('a png waits for a font still loading (up to its bound); markdown and html do not', async () => {
    expect((await waitMs({ format: 'png' })).wait).toBeGreaterThanOrEqual(2_500);
    const markdown = await waitMs({ format: 'markdown' });
    expect(markdown.res.body).toContain('Words that need a font.');
    expect(markdown.wait).toBeLessThan(1_500);
    expect((await waitMs({ format: 'html' })).wait).toBeLessThan(1_500);
  }, 30_000);

  it('markdown with a drawn extra format waits, as the image needs it', async () => {
    expect((await waitMs({ format: 'markdown', extra_formats: 'png', response_type: 'json' })).wait).toBeGreaterThanOrEqual(2_500);
  }, 30_000);
});
