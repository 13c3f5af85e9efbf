import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KeyStore } from './accounts/key-store.js';
import { SqliteKeyStore } from './accounts/sqlite-key-store.js';
import { findChromium } from './capture/chromium-path.js';
import { ChromiumEngine } from './capture/chromium-engine.js';
import type { Config } from './config/schema.js';
import { openSqlite } from './db/sqlite.js';
import { createTargetCheck } from './egress/target-check.js';

/** The SQLite file under the data dir. */
export function openKeyStore(config: Config): KeyStore {
  return new SqliteKeyStore(openSqlite(join(config.SHUTTER_DATA_DIR, 'shutter.db')));
}

/** A Chromium engine configured from SHUTTER_* settings (not started). */
export function createEngine(config: Config, logger: Logger): ChromiumEngine {
  return new ChromiumEngine({
    executablePath: findChromium(config.SHUTTER_CHROMIUM_PATH),
    concurrency: config.SHUTTER_CONCURRENCY,
    queueSize: config.SHUTTER_QUEUE_SIZE,
    maxCapturesPerBrowser: config.SHUTTER_BROWSER_MAX_CAPTURES,
    limits: { maxFullPageHeight: config.SHUTTER_MAX_FULL_PAGE_HEIGHT, maxPixels: config.SHUTTER_MAX_PIXELS },
    checkTarget: createTargetCheck(config.SHUTTER_ALLOWED_PRIVATE_NETWORKS),
    logger,
  });
}
