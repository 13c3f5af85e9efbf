import type { CaptureResult } from '../capture/engine.js';
import { AppError } from '../errors/app-error.js';
import { formatOf } from '../formats/registry.js';
import { downloadNameOf } from '../options/attachment-name.js';
import type { TakeOptions } from '../options/schema.js';
import type { FileStore, StoredFile } from '../storage/file-store.js';

/** extra_formats, stored beside the main file (upload=1, jobs): each one's stored file by format. */
export async function storeExtras(
  store: FileStore | undefined,
  options: TakeOptions,
  result: CaptureResult,
): Promise<Record<string, StoredFile> | undefined> {
  if (!result.extra?.length) return undefined;
  const stored: Record<string, StoredFile> = {};
  for (const extra of result.extra) {
    stored[extra.format] = await storeCapture(store, options, { ...result, ...extra, extra: undefined });
  }
  return stored;
}

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
