import type { LightMyRequestResponse } from 'fastify';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rendererProcesses } from '../fixtures/security/processes.js';
import { startCanary, startSecurityFixtures, type Canary, type SecurityFixtures } from '../fixtures/security/servers.js';
import { nameOf, pixels, startService, type Service } from './harness.js';

/**
 * Pages that fight the capture: blocking dialogs, popups, downloads, infinite loops, memory
 * bombs, and pages that leave state behind for the next caller. Each must fail alone (or not at
 * all) and leave the service able to capture the next page.
 */

let canary: Canary;
let fixtures: SecurityFixtures;
let service: Service;

beforeAll(async () => {
  canary = await startCanary('127.0.0.2');
  fixtures = await startSecurityFixtures(canary);
  // A smaller heap cap than the default keeps the memory bomb quick; the mechanism is the same.
  service = await startService({ allowedPrivateNetworks: '127.0.0.1/32', env: { SHUTTER_PAGE_MEMORY_MB: '256' } });
});

afterAll(async () => {
  await service?.close();
  await fixtures?.close();
  await canary?.close();
});

afterEach(() => {
  expect(canary.hits(), canary.log.join('\n')).toBe(0);
});

async function take(query: Record<string, string>): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'GET',
    url: `/v1/take?${new URLSearchParams(query).toString()}`,
    headers: { apikey: service.apiKey },
  });
}

const url = (name: string) => `${fixtures.origin}/${name}`;
const errorCode = (res: LightMyRequestResponse) => (res.json() as { error: { code: string } }).error.code;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

async function expectCaptureWorks(): Promise<void> {
  const res = await take({ url: url('webrtc.html'), viewport_width: '200', viewport_height: '200', format: 'jpg' });
  expect(res.statusCode, res.body).toBe(200);
  expect(nameOf((await pixels(res.rawPayload)).at(100, 100))).toBe('green');
}

describe('pages that block or multiply', () => {
  it('alert, confirm, prompt, print() and beforeunload do not block the capture', async () => {
    const [res, ms] = await timed(() => take({ url: url('dialogs.html'), timeout: '10' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(nameOf((await pixels(res.rawPayload)).at(600, 400))).toBe('green');
    expect(ms).toBeLessThan(5000);
    await expectCaptureWorks();
  });

  it('popups are closed, and their requests are guarded too', async () => {
    const [res, ms] = await timed(() => take({ url: url('popups.html'), timeout: '10', delay: '0.5' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(ms).toBeLessThan(5000);
    await expectCaptureWorks();
  });

  it('downloads are denied: the capture goes on and nothing is written to disk', async () => {
    const marker = `m${Date.now()}`;
    const res = await take({ url: `${url('download.html')}?marker=${marker}`, delay: '1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await filesContaining(`SHUTTER-DOWNLOAD-MARKER-${marker}`)).toEqual([]);
  });
});

describe('pages that never finish', () => {
  it('an infinite loop before load ends at the timeout with 504, its renderer is killed, the next capture works', async () => {
    const baseline = rendererProcesses().length;
    const [res, ms] = await timed(() => take({ url: url('infinite-loop.html'), timeout: '2' }));
    expect(res.statusCode, res.body).toBe(504);
    expect(errorCode(res)).toBe('capture_timeout');
    expect(ms).toBeLessThan(4000);
    await expectCaptureWorks();
    // The looping renderer does not live on, burning a core.
    await expect.poll(() => rendererProcesses().length, { timeout: 10_000 }).toBeLessThanOrEqual(baseline + 1);
  });

  it('an infinite loop after load (the screenshot never comes) ends with 504 too', async () => {
    const [res, ms] = await timed(() => take({ url: url('loop-after-load.html'), timeout: '2' }));
    expect(res.statusCode, res.body).toBe(504);
    expect(ms).toBeLessThan(4000);
    await expectCaptureWorks();
  });

  it('a memory bomb fails alone: a capture running beside it succeeds, and so does the next', async () => {
    const [[bomb, neighbour], ms] = await timed(() =>
      Promise.all([
        take({ url: url('memory-bomb.html'), timeout: '30' }),
        take({ url: `${url('dialogs.html')}?neighbour`, timeout: '30' }),
      ]),
    );
    expect(bomb.statusCode, bomb.body).toBe(422);
    expect(errorCode(bomb)).toBe('navigation_failed');
    expect(bomb.json()).toMatchObject({ error: { message: expect.stringMatching(/crashed/) } });
    expect(neighbour.statusCode, neighbour.body).toBe(200);
    expect(ms).toBeLessThan(20_000);
    await expectCaptureWorks();
  });
});

describe('limits checked before any rendering', () => {
  it.each([
    ['viewport_width', '20000'],
    ['viewport_height', '100000'],
    ['device_scale_factor', '10'],
    ['viewport_width', '0'],
    ['device_scale_factor', '0'],
  ])('%s=%s is 400 at once', async (name, value) => {
    const [res, ms] = await timed(() => take({ url: url('dialogs.html'), [name]: value }));
    expect(res.statusCode, res.body).toBe(400);
    expect(errorCode(res)).toBe('invalid_parameter');
    expect(ms).toBeLessThan(500);
  });
});

describe('no state crosses captures', () => {
  const checks = ['cookie', 'localStorage', 'sessionStorage', 'indexedDB', 'cacheStorage', 'serviceWorker'];

  it('cookies, storage, IndexedDB, Cache Storage, service workers and the HTTP cache of one capture are gone in the next', async () => {
    const written = await take({ url: url('state-write.html'), wait_until: 'networkidle0', delay: '0.5' });
    expect(written.statusCode, written.body).toBe(200);
    const before = await pixels(written.rawPayload);
    // The checks do see state where it exists (service workers are blocked outright, so none registers).
    checks.forEach((check, i) =>
      expect(nameOf(before.at(i * 20 + 10, 10)), `${check} in the writing capture`).toBe(check === 'serviceWorker' ? 'green' : 'red'),
    );

    const cacheableBefore = fixtures.requests.filter((r) => r === '/cacheable').length;
    const read = await take({ url: url('state-read.html'), wait_until: 'networkidle0', delay: '0.5' });
    expect(read.statusCode, read.body).toBe(200);
    const after = await pixels(read.rawPayload);
    checks.forEach((check, i) => expect(nameOf(after.at(i * 20 + 10, 10)), `${check} in the next capture`).toBe('green'));
    // max-age=3600 would have been served from a shared HTTP cache; the next capture asks the server again.
    expect(fixtures.requests.filter((r) => r === '/cacheable').length).toBe(cacheableBefore + 1);
  });
});

/** Files under the places Chromium or Playwright could put a download, whose content holds the marker. */
async function filesContaining(marker: string): Promise<string[]> {
  const roots = [
    join(homedir(), 'Downloads'),
    ...(await readdir(tmpdir()).catch(() => [] as string[])).filter((name) => /^playwright/.test(name)).map((name) => join(tmpdir(), name)),
  ];
  const found: string[] = [];
  const visit = async (path: string, depth: number): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) {
      if (depth > 6) return;
      for (const entry of await readdir(path).catch(() => [] as string[])) await visit(join(path, entry), depth + 1);
    } else if (info.isFile() && info.size < 1024 * 1024) {
      if ((await readFile(path).catch(() => Buffer.alloc(0))).includes(marker)) found.push(path);
    }
  };
  for (const root of roots) await visit(root, 0);
  return found;
}
