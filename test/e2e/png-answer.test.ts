import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Timings } from '../../src/capture/timings.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';
import { startService, type Service } from './harness.js';

// Issue 35: a png that someone waits for is Chromium's own best-compression PNG, answered as it is
// (as fast as Playwright's page.screenshot(), the same bytes); an async job's png is recompressed
// from Chromium's fast PNG to fewer bytes (docs/performance.md, "PNG size"). Same pixels either way.

let server: Server | undefined;
let base = '';
let service: Service;

beforeAll(async () => {
  server = createServer((req, res) => {
    void readFile(new URL('../../bench/fixtures/text.html', import.meta.url)).then((body) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await startService();
});

afterAll(async () => {
  await service?.close();
  server?.close();
});

const pixels = (png: Buffer) => sharp(png).ensureAlpha().raw().toBuffer();

describe('png on the response path and in async jobs', () => {
  it('an async capture is smaller than the answer waited on, with the same pixels', async () => {
    const capture = (async: boolean) =>
      service.engine.capture({ ...parseTakeOptions({ url: `${base}/text.html` }, { countries: [] }), async }, new Timings());
    const answered = await capture(false);
    const stored = await capture(true);
    expect(stored.body.length).toBeLessThan(answered.body.length * 0.95);
    expect((await pixels(stored.body)).equals(await pixels(answered.body))).toBe(true);
    // The answer is Chromium's zlib stream as it made it: deflate at its default level, not the fastest.
    const idat = answered.body.indexOf('IDAT');
    expect(answered.body[idat + 5]! >> 6).toBeGreaterThanOrEqual(2);
  });
});
