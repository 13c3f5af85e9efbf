import { createRequire } from 'node:module';
import type * as PlaywrightCore from 'playwright-core';
import type { Browser, CDPSession } from 'playwright-core';
import { withTimeout } from '../util/race-abort.js';

// Required, not imported: see options/devices.ts (Node 20 would scan playwright-core's bundles for export names).
const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof PlaywrightCore;

/** A launched Chromium with what the pool needs to watch it and, if it hangs, to kill it. */
export interface BrowserProcess {
  browser: Browser;
  /** The browser process id (not the launcher's shell wrapper), when Chromium reported it. */
  pid: number | undefined;
  /** A browser-level DevTools session, kept for health probes. */
  cdp: CDPSession;
}

export interface LaunchOptions {
  executablePath: string;
  args: string[];
  timeoutMs?: number;
}

/** Launches Chromium and asks it for its own process id. */
export async function launchBrowserProcess(options: LaunchOptions): Promise<BrowserProcess> {
  const browser = await chromium.launch({
    executablePath: options.executablePath,
    args: options.args,
    // The service handles its own signals; Playwright must not kill the browser under it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: options.timeoutMs ?? 30_000,
  });
  try {
    const cdp = await browser.newBrowserCDPSession();
    return { browser, cdp, pid: await browserPid(cdp) };
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Debian's /usr/bin/chromium-headless-shell is a shell script that does not exec, so the process
 * Playwright started is not Chromium; Chromium itself says which process is the browser.
 */
async function browserPid(cdp: CDPSession): Promise<number | undefined> {
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string; id: number }> };
    return processInfo.find((p) => p.type === 'browser')?.id;
  } catch {
    return undefined;
  }
}

/** True when the browser answers a trivial DevTools call within the time limit. */
export async function isResponsive(proc: BrowserProcess, timeoutMs: number): Promise<boolean> {
  return withTimeout(proc.cdp.send('Browser.getVersion'), timeoutMs).then(
    () => true,
    () => false,
  );
}

/** SIGKILL: for a browser that stopped answering; Playwright then reports it disconnected. */
export function killBrowserProcess(proc: BrowserProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(proc.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Closes the browser politely, and kills it if that does not finish in time (a hung browser never answers). */
export async function closeBrowserProcess(proc: BrowserProcess, timeoutMs = 5_000): Promise<void> {
  const closed = await withTimeout(
    proc.browser.close().catch(() => undefined),
    timeoutMs,
  ).then(
    () => true,
    () => false,
  );
  if (!closed) killBrowserProcess(proc);
}
