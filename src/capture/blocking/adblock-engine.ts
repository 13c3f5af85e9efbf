import type { FiltersEngine } from '@ghostery/adblocker';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { readFilterList } from './filter-lists.js';

export interface AdblockEngineOptions {
  /** File paths or http(s) URLs of filter lists (EasyList syntax). */
  lists: readonly string[];
  /** Where the serialized engine and downloaded lists are kept. */
  cacheDir: string;
  /** How often URL lists are fetched again; 0 = never. */
  refreshHours: number;
  logger: Logger;
}

/** Bumped when the engine's serialized format or our parse options change. */
const FORMAT_VERSION = 'ghostery2-generic1';

/**
 * The ad-blocking filter engine: parsed from the lists once (~0.7 s for EasyList + EasyPrivacy),
 * cached serialized in the data dir keyed by the lists' content, and loaded from there in
 * milliseconds on later starts. Captures without block_ads never touch it.
 */
export class AdblockEngineStore {
  private current?: Promise<FiltersEngine | undefined>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: AdblockEngineOptions) {}

  /** Schedules refreshes of URL lists (loading itself happens on the first engine() call). */
  start(): void {
    const hasUrls = this.options.lists.some((l) => /^https?:/i.test(l));
    if (hasUrls && this.options.refreshHours > 0) {
      this.timer = setInterval(() => void this.refresh(), this.options.refreshHours * 3_600_000);
      this.timer.unref();
    }
  }

  /** The engine, or undefined when no list could be read. */
  engine(): Promise<FiltersEngine | undefined> {
    this.current ??= this.load(false);
    return this.current;
  }

  /** Re-reads the lists (downloading URL lists again) and swaps the engine in when it built. */
  async refresh(): Promise<void> {
    const next = this.load(true);
    if (await next) this.current = next;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async load(refetch: boolean): Promise<FiltersEngine | undefined> {
    const { lists, cacheDir, logger } = this.options;
    const started = performance.now();
    const texts = (await Promise.all(lists.map((source) => readFilterList(source, cacheDir, refetch, logger)))).filter(
      (t): t is string => t !== undefined,
    );
    if (texts.length === 0) {
      logger.warn({ lists }, 'no ad-block filter list could be read; block_ads is unavailable');
      return undefined;
    }
    // The engine library is loaded with the engine: start-up does not pay for it.
    const { FiltersEngine } = await import('@ghostery/adblocker');
    const hash = createHash('sha256').update(FORMAT_VERSION);
    for (const text of texts) hash.update(text);
    const file = join(cacheDir, `engine-${hash.digest('hex').slice(0, 16)}.bin`);
    try {
      const engine = FiltersEngine.deserialize(new Uint8Array(await readFile(file)));
      logger.info({ ms: Math.round(performance.now() - started), file }, 'ad-block engine loaded from cache');
      return engine;
    } catch {
      // No cache for these lists yet (or an unreadable one): build it.
    }
    const engine = FiltersEngine.parse(texts.join('\n'), {
      loadCosmeticFilters: true,
      loadGenericCosmeticsFilters: true,
      loadNetworkFilters: true,
    });
    await mkdir(cacheDir, { recursive: true });
    await removeOldEngines(cacheDir);
    await writeFile(file, engine.serialize());
    logger.info({ ms: Math.round(performance.now() - started), lists: texts.length }, 'ad-block engine built and cached');
    return engine;
  }
}

async function removeOldEngines(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (/^engine-[0-9a-f]+\.bin$/.test(name)) await rm(join(dir, name), { force: true });
  }
}
