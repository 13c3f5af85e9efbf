/**
 * The bound, not a product: the least work any service with a fresh browser context per capture
 * must do for Shutter's PNG. One warm Chromium over a bare CDP pipe (no Playwright), per request:
 * context → page → Network.enable (issue 35's decision: Shutter's request tracker, stall bound,
 * partial_load and networkidle need the network events, and Playwright enables them anyway) →
 * navigate → wait for load → Chromium's PNG as Shutter answers it (its own compression, not
 * recompressed) → dispose (off the response path). No validation, auth, egress proxy, font wait or
 * retries beyond a frame.
 * Viewport png only. docs/performance.md compares Shutter and the floor with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchArgs } from '../../src/capture/launch-args.js';
import { CdpPipe } from '../lib/cdp-pipe.js';
import { runBaseline, type BaselineRequest } from './take-server.js';

const profile = mkdtempSync(join(tmpdir(), 'bench-bare-'));
let chromium: CdpPipe | undefined;

async function capture(request: BaselineRequest): Promise<Buffer> {
  if (!chromium) throw new Error('browser not started');
  if (request.format !== 'png' || request.fullPage) throw new Error('the bare-CDP bound does viewport png only');
  const cdp = chromium;
  const { browserContextId } = await cdp.send<{ browserContextId: string }>('Target.createBrowserContext', { disposeOnDetach: false });
  try {
    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank', browserContextId });
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    await cdp.send(
      'Emulation.setDeviceMetricsOverride',
      { width: request.width, height: request.height, deviceScaleFactor: 1, mobile: false },
      sessionId,
    );
    await cdp.send('Network.enable', {}, sessionId);
    const navigation = await cdp.send<{ errorText?: string }>('Page.navigate', { url: request.url }, sessionId);
    if (navigation.errorText) throw new Error(navigation.errorText);
    await cdp.send('Runtime.evaluate', { expression: LOADED, awaitPromise: true }, sessionId);
    return await screenshot(cdp, sessionId);
  } finally {
    void cdp.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
  }
}

const LOADED = `document.readyState === 'complete' || new Promise((resolve) => addEventListener('load', resolve, { once: true }))`;

/**
 * As Shutter and the floor do: right after load Chromium may have no frame to copy yet; ask again up
 * to three times, 100 ms apart (16 ms apart, the full run of 2026-11-24 lost one capture at c=8).
 */
async function screenshot(cdp: CdpPipe, sessionId: string): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { data } = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png', optimizeForSpeed: false }, sessionId);
      return Buffer.from(data, 'base64');
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

runBaseline({
  capture,
  async start() {
    const executablePath = process.env.BENCH_CHROMIUM;
    if (!executablePath) throw new Error('BENCH_CHROMIUM must be set');
    // Shutter's flags without its proxy, and what Playwright adds that matters for a capture.
    const args = [
      '--headless',
      '--no-startup-window',
      `--user-data-dir=${profile}`,
      '--disable-dev-shm-usage',
      '--enable-features=CDPScreenshotNewSurface',
      '--disable-features=PaintHolding',
      ...launchArgs(),
    ];
    chromium = CdpPipe.launch(executablePath, args);
    await chromium.send('Browser.getVersion');
  },
  async stop() {
    chromium?.close();
    rmSync(profile, { recursive: true, force: true });
  },
});
