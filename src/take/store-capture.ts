import type { CaptureResult } from '../capture/engine.js';
import { AppError } from '../errors/app-error.js';
import { formatOf } from '../formats/registry.js';
import { downloadNameOf } from '../options/attachment-name.js';
import type { TakeOptions } from '../options/schema.js';
import type { FileStore, StoredFile } from '../storage/file-store.js';

/** Stores a capture for upload=1; a store that fails is a 502 (and the capture is not charged). */
export async function storeCapture(store: FileStore | undefined, options: TakeOptions, result: CaptureResult): Promise<StoredFile> {
  if (!store) throw new AppError('not_implemented', 'upload is not configured on this server');
  const downloadName = downloadNameOf(options.attachment_name, result.format);
  try {
    return await store.put({
      body: result.body,
      contentType: result.contentType,
      extension: formatOf(result.format).extension,
      ...(downloadName ? { downloadName } : {}),
    });
  } catch {
    throw new AppError('storage_failed', 'the capture could not be stored; retry shortly', { retryAfterSeconds: 5 });
  }
}
