import { Request } from '@ghostery/adblocker';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdblockEngineStore } from '../../src/capture/blocking/adblock-engine.js';

let dir: string;
const logger = pino({ level: 'silent' });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-adblock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const store = (lists: string[]) => new AdblockEngineStore({ lists, cacheDir: join(dir, 'cache'), refreshHours: 0, logger });
const blocks = (engine: Awaited<ReturnType<AdblockEngineStore['engine']>>, url: string) =>
  engine!.match(Request.fromRawDetails({ url, sourceUrl: 'https://news.example/', type: 'script' })).match;

describe('AdblockEngineStore', () => {
  it('builds the engine from list files and caches it serialized', async () => {
    const list = join(dir, 'list.txt');
    await writeFile(list, '||ads.example^\n##.ad-slot\n');
    const engine = await store([list]).engine();
    expect(blocks(engine, 'https://ads.example/x.js')).toBe(true);
    expect(blocks(engine, 'https://cdn.example/x.js')).toBe(false);
    const cached = (await readdir(join(dir, 'cache'))).filter((f) => f.endsWith('.bin'));
    expect(cached).toHaveLength(1);
  });

  it('a second store loads the cached engine (same lists) and rebuilds when a list changes', async () => {
    const list = join(dir, 'list.txt');
    await writeFile(list, '||ads.example^\n');
    await store([list]).engine();
    const [file] = (await readdir(join(dir, 'cache'))).filter((f) => f.endsWith('.bin'));
    const again = await store([list]).engine();
    expect(blocks(again, 'https://ads.example/x.js')).toBe(true);
    expect((await readdir(join(dir, 'cache'))).filter((f) => f.endsWith('.bin'))).toEqual([file]);

    await writeFile(list, '||tracker.example^\n');
    const changed = await store([list]).engine();
    expect(blocks(changed, 'https://tracker.example/t.js')).toBe(true);
    expect(blocks(changed, 'https://ads.example/x.js')).toBe(false);
    const files = (await readdir(join(dir, 'cache'))).filter((f) => f.endsWith('.bin'));
    expect(files).toHaveLength(1);
    expect(files[0]).not.toBe(file);
  });

  it('no readable list means no engine (block_ads then answers 501)', async () => {
    expect(await store([join(dir, 'missing.txt')]).engine()).toBeUndefined();
  });

  it("Debian's EasyList and EasyPrivacy load and block real ad and tracker hosts", async () => {
    const engine = await store([
      '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
      '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt',
    ]).engine();
    expect(blocks(engine, 'https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js')).toBe(true);
    expect(blocks(engine, 'https://www.google-analytics.com/analytics.js')).toBe(true);
    expect(blocks(engine, 'https://news.example/app.js')).toBe(false);
  });

  it('downloads URL lists, keeps a copy for offline restarts, and refresh() picks up a changed list', async () => {
    let list = '||ads.example^\n';
    let up = true;
    const server = createServer((_req, res) => (up ? res.end(list) : res.writeHead(503).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`;
    try {
      const first = store([url]);
      expect(blocks(await first.engine(), 'https://ads.example/a.js')).toBe(true);

      up = false; // the list server is gone: a restart uses the downloaded copy
      const offline = store([url]);
      expect(blocks(await offline.engine(), 'https://ads.example/a.js')).toBe(true);

      up = true;
      list = '||tracker.example^\n';
      await first.refresh();
      const refreshed = await first.engine();
      expect(blocks(refreshed, 'https://tracker.example/t.js')).toBe(true);
      expect(blocks(refreshed, 'https://ads.example/a.js')).toBe(false);
    } finally {
      server.close();
    }
  });
});
