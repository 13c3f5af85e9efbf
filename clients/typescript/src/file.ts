import type * as NodeFs from 'node:fs';
import type * as NodeFsPromises from 'node:fs/promises';
import type * as NodeStream from 'node:stream';
import type * as NodeStreamPromises from 'node:stream/promises';
import type { TakeFileResult } from './types.js';

// Variable specifiers keep bundlers for browsers from resolving Node modules; takeToFile is Node only.
const FS = 'node:fs';
const FS_PROMISES = 'node:fs/promises';
const STREAM = 'node:stream';
const STREAM_PROMISES = 'node:stream/promises';

/**
 * Streams a response body to `path`: through a temporary file beside it, renamed into place when
 * complete, so `path` never holds half a capture. The body is never held in memory as a whole.
 */
export async function writeBodyToFile(response: Response, path: string, signal: AbortSignal): Promise<TakeFileResult> {
  if (typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !== 'string') {
    throw new TypeError('takeToFile needs Node.js (node:fs); use take() elsewhere');
  }
  const [{ createWriteStream }, { rename, stat, unlink }, { Readable }, { pipeline }] = await Promise.all([
    import(FS) as Promise<typeof NodeFs>,
    import(FS_PROMISES) as Promise<typeof NodeFsPromises>,
    import(STREAM) as Promise<typeof NodeStream>,
    import(STREAM_PROMISES) as Promise<typeof NodeStreamPromises>,
  ]);
  const partial = `${path}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.part`;
  try {
    if (response.body) {
      const source = Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]);
      await pipeline(source, createWriteStream(partial), { signal });
    } else {
      await pipeline(Readable.from([]), createWriteStream(partial), { signal });
    }
    await rename(partial, path);
  } catch (error) {
    await unlink(partial).catch(() => undefined);
    throw signal.aborted ? signal.reason : error;
  }
  const { size } = await stat(path);
  return {
    path,
    size,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    requestId: response.headers.get('x-request-id') ?? undefined,
    truncated: response.headers.has('x-shutter-truncated'),
    headers: response.headers,
  };
}
