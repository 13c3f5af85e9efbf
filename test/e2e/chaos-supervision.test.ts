import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/capture/browser-pool.js';
import { findChromium } from '../../src/capture/chromium-path.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService } from './harness.js';

/**
 * The browser's supervisor: a Chromium that stops answering is killed and replaced, and
 * relaunches that keep failing make /readyz fail until a launch works again.
 */

const chromium = findChromium(process.env.SHUTTER_CHROMIUM_PATH);
let fixtures: FixtureServer;
let dir: string;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  dir = await mkdtemp(join(tmpdir(), 'shutter-chaos-'));
});

afterAll(async () => {
  await stopFixtureServer(fixtures);
  await rm(dir, { recursive: true, force: true });
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a hung browser', () => {
  it('is detected by the health probe, killed and replaced; a capture waiting on it fails with 503', async () => {
    const pool = new BrowserPool({
      executablePath: chromium,
      maxCapturesPerBrowser: 100,
      logger: pino({ level: 'silent' }),
      healthCheck: { intervalMs: 250, timeoutMs: 1000 },
    });
    try {
      await pool.start();
      const pid = pool.browserPid!;
      expect(pid).toBeGreaterThan(0);
      // SIGSTOP: the process lives on but answers nothing, as a wedged browser does.
      process.kill(pid, 'SIGSTOP');
      const stuck = pool
        .withPage({}, async ({ page }) => page.setContent('<p>never</p>'))
        .then(
          () => 'rendered',
          (error: { code?: string }) => error.code,
        );
      const started = performance.now();
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(await stuck).toBe('browser_unavailable');

      const text = await pool.withPage({}, async ({ page }) => {
        await page.setContent('<p>fresh</p>');
        return page.textContent('p');
      });
      expect(text).toBe('fresh');
      expect(pool.browserPid).not.toBe(pid);
      expect(pool.ready).toBe(true);
      // GET /metrics: shutter_browser_restarts_total{reason="unresponsive"}.
      expect(pool.restarts).toEqual({ capture_budget: 0, crash: 0, unresponsive: 1 });
    } finally {
      await pool.close();
    }
  });
});

describe('relaunches that keep failing', () => {
  it('make /readyz answer 503 (captures get a fast 503), and a working launch makes it ready again', async () => {
    // A launcher that works only while the flag file exists.
    const flag = join(dir, 'chromium-may-start');
    const launcher = join(dir, 'chromium-launcher');
    await writeFile(flag, '');
    await writeFile(launcher, `#!/bin/sh\n[ -f '${flag}' ] || exit 1\nexec '${chromium}' "$@"\n`);
    await chmod(launcher, 0o755);
    const service = await startService({ allowedPrivateNetworks: '127.0.0.1/32', env: { SHUTTER_CHROMIUM_PATH: launcher } });
    const readyz = async () => (await service.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
    const take = () =>
      service.app.inject({
        method: 'GET',
        url: `/v1/take?url=${encodeURIComponent(`${fixtures.baseUrl}/simple.html`)}&format=jpg`,
        headers: { apikey: service.apiKey },
      });
    try {
      expect(await readyz()).toBe(200);
      const pool = (service.engine as unknown as { pool: BrowserPool }).pool;
      const pid = pool.browserPid!;
      await rm(flag);
      process.kill(pid, 'SIGKILL');
      // Immediate relaunch, then after 0.5 s and 1 s: three failures.
      await expect.poll(readyz, { timeout: 10_000, interval: 100 }).toBe(503);
      const [down, ms] = await (async () => {
        const started = performance.now();
        const res = await take();
        return [res, performance.now() - started] as const;
      })();
      expect(down.statusCode, down.body).toBe(503);
      expect((down.json() as { error: { code: string } }).error.code).toBe('browser_unavailable');
      expect(ms).toBeLessThan(1000);

      await writeFile(flag, '');
      await expect.poll(readyz, { timeout: 15_000, interval: 200 }).toBe(200);
      const up = await take();
      expect(up.statusCode, up.body).toBe(200);
    } finally {
      await service.close();
    }
  });
});
