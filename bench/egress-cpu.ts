/**
 * The egress proxy's CPU per capture of a bench page (issue 21, item 2; docs/performance.md,
 * "Egress over SOCKS5"). The proxy of this build (src/egress/egress-proxy.ts) runs in a child
 * process of its own so that its CPU is its alone; Chromium is launched with this build's flags
 * behind it (src/capture/launch-args.ts) and loads the page from bench/fixture-server.ts the way
 * a capture does: a fresh context, `goto` until load, a viewport screenshot, close, BENCH_LOADS
 * times at BENCH_CONCURRENCY. Per load it prints the proxy process's CPU (process.cpuUsage), that
 * of Chromium's network service and of the whole browser tree, the loads per second and the load
 * average. To compare two builds, run each build's dist/bench/egress-cpu.js in turns:
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/egress-cpu.js
 *
 * Options (environment): BENCH_LOADS (40), BENCH_CONCURRENCY (4), BENCH_ROUNDS (1), BENCH_PAGE
 * (heavy.html), BENCH_CHROMIUM (default: the one Shutter would pick).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { closeBrowserProcess, launchBrowserProcess, type BrowserProcess } from '../src/capture/browser-process.js';
import { findChromium } from '../src/capture/chromium-path.js';
import { launchArgs } from '../src/capture/launch-args.js';
import { EgressProxy } from '../src/egress/egress-proxy.js';
import { parseCidrList } from '../src/values/cidr.js';
import { Child, freePort, killEverything } from './lib/processes.js';
import { processTree, ticksPerSecond } from './lib/proc-tree.js';

const SELF = fileURLToPath(import.meta.url);
const FIXTURE_SERVER = fileURLToPath(new URL('./fixture-server.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const LOADS = Number(process.env.BENCH_LOADS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const PAGE = process.env.BENCH_PAGE ?? 'heavy.html';

/** The child: the proxy alone, answering its URL once and its CPU time whenever asked. */
async function proxyChild(): Promise<void> {
  const proxy = new EgressProxy({ allowed: parseCidrList('127.0.0.0/8'), logger: pino({ level: 'silent' }) });
  const url = await proxy.listen();
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
    // A clean exit writes the profile when the bench runs under `node --cpu-prof`.
    if (message === 'exit') process.exit(0);
  });
  process.send?.({ url });
}

function ask<T>(child: ChildProcess, key: string, message?: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (answer: Record<string, unknown>) => {
      if (!(key in answer)) return;
      child.off('message', on);
      resolve(answer[key] as T);
    };
    child.on('message', on);
    if (message) child.send(message);
  });
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** CPU ms of the browser tree and of its network service process, now. */
function browserCpu(browserPid: number): { tree: number; network: number } {
  const msPerTick = 1000 / ticksPerSecond();
  let tree = 0;
  let network = 0;
  for (const p of processTree(browserPid)) {
    tree += p.cpuTicks * msPerTick;
    if (cmdline(p.pid).includes('network.mojom.NetworkService')) network += p.cpuTicks * msPerTick;
  }
  return { tree, network };
}

async function capture(browser: BrowserProcess, url: string): Promise<void> {
  const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    await page.screenshot();
  } finally {
    await context.close();
  }
}

async function waitForFixtures(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${base}/simple.html`).catch(() => undefined))?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the fixture server did not start');
}

async function main(): Promise<void> {
  const fixturePort = await freePort();
  const fixtures = new Child(
    'fixtures',
    [process.execPath, FIXTURE_SERVER],
    { BENCH_PORT: String(fixturePort) },
    { cwd: ROOT, verbose: false },
  );
  const proxy = fork(SELF, ['proxy'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let browser: BrowserProcess | undefined;
  try {
    const base = `http://127.0.0.1:${fixturePort}`;
    await waitForFixtures(base);
    const proxyUrl = await ask<string>(proxy, 'url');
    browser = await launchBrowserProcess({
      executablePath: findChromium(process.env.BENCH_CHROMIUM ?? process.env.SHUTTER_CHROMIUM_PATH),
      args: launchArgs({ proxyServer: proxyUrl }),
    });
    const browserPid = browser.pid;
    if (browserPid === undefined) throw new Error('Chromium did not tell its pid');
    const url = `${base}/${PAGE}`;
    for (let i = 0; i < CONCURRENCY; i++) await capture(browser, url);
    console.log(`egress-cpu: ${ROOT} proxy ${proxyUrl.split(':')[0]}, ${PAGE}, ${LOADS} loads at c=${CONCURRENCY}`);
    for (let round = 0; round < ROUNDS; round++) {
      const load = loadavg()[0]!.toFixed(2);
      const proxyBefore = await ask<NodeJS.CpuUsage>(proxy, 'cpu', 'cpu');
      const chromeBefore = browserCpu(browserPid);
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < LOADS) {
            next++;
            await capture(browser!, url);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const proxyAfter = await ask<NodeJS.CpuUsage>(proxy, 'cpu', 'cpu');
      const chromeAfter = browserCpu(browserPid);
      const per = (ms: number) => (ms / LOADS).toFixed(1);
      console.log(
        JSON.stringify({
          round,
          scheme: proxyUrl.split(':')[0],
          proxyMsPerLoad: Number(per(cpuMs(proxyAfter) - cpuMs(proxyBefore))),
          // System time is mostly the kernel's loopback TCP work for the bytes relayed.
          proxySystemMsPerLoad: Number(per((proxyAfter.system - proxyBefore.system) / 1000)),
          networkServiceMsPerLoad: Number(per(chromeAfter.network - chromeBefore.network)),
          browserTreeMsPerLoad: Number(per(chromeAfter.tree - chromeBefore.tree)),
          loadsPerSecond: Number((LOADS / seconds).toFixed(2)),
          loadAverage: `${load} → ${loadavg()[0]!.toFixed(2)}`,
        }),
      );
    }
  } finally {
    if (browser) await closeBrowserProcess(browser);
    proxy.send('exit');
    await new Promise((r) => setTimeout(r, 1000));
    proxy.kill();
    await fixtures.stop();
  }
}

if (process.argv[2] === 'proxy') {
  proxyChild().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    killEverything();
    process.exitCode = 1;
  });
}
