import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from '../errors/config-error.js';
import type { Config } from '../config/schema.js';
import type { FileStore } from './file-store.js';
import { LocalStore } from './local-store.js';
import { loadSigningSecret, UrlSigner } from './url-signer.js';

/** The store SHUTTER_STORAGE names, configured from the environment. */
export async function createStore(config: Config, logger: Logger): Promise<FileStore> {
  const ttlSeconds = config.SHUTTER_STORAGE_TTL_HOURS * 3600;
  if (config.SHUTTER_STORAGE === 's3') {
    if (!config.SHUTTER_S3_BUCKET) throw new ConfigError('SHUTTER_S3_BUCKET is required when SHUTTER_STORAGE=s3');
    // The AWS SDK is loaded only for this store (~90 ms of start-up otherwise).
    const { S3Store } = await import('./s3-store.js');
    return new S3Store({
      bucket: config.SHUTTER_S3_BUCKET,
      region: config.SHUTTER_S3_REGION,
      endpoint: config.SHUTTER_S3_ENDPOINT,
      prefix: config.SHUTTER_S3_PREFIX,
      forcePathStyle: config.SHUTTER_S3_FORCE_PATH_STYLE,
      accessKeyId: config.SHUTTER_S3_ACCESS_KEY_ID,
      secretAccessKey: config.SHUTTER_S3_SECRET_ACCESS_KEY,
      publicBaseUrl: config.SHUTTER_S3_PUBLIC_BASE_URL,
      ttlSeconds,
    });
  }
  const secret = await loadSigningSecret(config.SHUTTER_SIGNING_SECRET, join(config.SHUTTER_DATA_DIR, 'signing-secret'));
  const dir = join(config.SHUTTER_DATA_DIR, 'files');
  await mkdir(dir, { recursive: true });
  return new LocalStore({ dir, signer: new UrlSigner(secret), ttlSeconds, logger });
}
