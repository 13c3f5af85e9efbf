import { createApp } from '../http/app.js';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../observability/logger.js';
import { createEngine, openKeyStore } from '../service.js';
import { VERSION } from '../version.js';

/** `shutter serve`: the HTTP service. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.SHUTTER_LOG_LEVEL);
  const keys = openKeyStore(config);
  if (config.SHUTTER_BOOTSTRAP_KEY) {
    const record = await keys.ensure({ name: 'bootstrap', key: config.SHUTTER_BOOTSTRAP_KEY });
    logger.info({ keyId: record.id }, 'bootstrap API key is ready (SHUTTER_BOOTSTRAP_KEY)');
  }
  const engine = createEngine(config, logger);
  await engine.start();
  const app = await createApp({ engine, keys, logger, version: VERSION, trustProxy: config.SHUTTER_TRUST_PROXY });
  await app.listen({ port: config.SHUTTER_PORT, host: config.SHUTTER_HOST });
  if ((await keys.countActive()) === 0) {
    console.error(
      [
        '',
        'No API key exists yet. Create one with:',
        '  npx shutter keys create --name me',
        'or start with SHUTTER_BOOTSTRAP_KEY=<a secret of 16+ characters> set. Then:',
        `  curl -H "apikey: $KEY" "http://localhost:${config.SHUTTER_PORT}/v1/take?url=https://example.com" -o shot.png`,
        '',
      ].join('\n'),
    );
  }
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    await engine.close();
    keys.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
