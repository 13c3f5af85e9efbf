import type { CaptureResult } from '../capture/engine.js';
import { formatOf } from '../formats/registry.js';
import type { StoredFile } from '../storage/file-store.js';

/**
 * extra_formats in the JSON answer (DESIGN.md §5.2): each format's content type and size, and its
 * stored link (upload=1), else its text (markdown, html) or its bytes as base64.
 */
export function extraJson(
  result: CaptureResult,
  extraStored: Record<string, StoredFile> | undefined,
  linkOf: (stored: StoredFile) => string,
) {
  return Object.fromEntries(
    (result.extra ?? []).map(({ format, contentType, body }) => {
      const stored = extraStored?.[format];
      const content = stored
        ? { url: linkOf(stored) }
        : formatOf(format).kind === 'text'
          ? { text: body.toString('utf8') }
          : { data_base64: body.toString('base64') };
      return [format, { content_type: contentType, size: body.length, ...content }];
    }),
  );
}
