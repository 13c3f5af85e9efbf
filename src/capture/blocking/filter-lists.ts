import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

const FETCH_TIMEOUT_MS = 30_000;

/**
 * A list's text: a file is read; a URL is downloaded (kept in the cache dir, so a restart
 * without network still has it). Undefined when neither works.
 */
export async function readFilterList(source: string, cacheDir: string, refetch: boolean, logger: Logger): Promise<string | undefined> {
  if (!/^https?:/i.test(source)) {
    return readFile(source, 'utf8').catch((error: unknown) => {
      logger.warn({ source, err: error }, 'cannot read filter list');
      return undefined;
    });
  }
  const copy = join(cacheDir, `list-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.txt`);
  if (!refetch) {
    const cached = await readFile(copy, 'utf8').catch(() => undefined);
    if (cached !== undefined) return cached;
  }
  try {
    const response = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const text = await response.text();
    await mkdir(cacheDir, { recursive: true });
    await writeFile(copy, text);
    return text;
  } catch (error) {
    logger.warn({ source, err: error }, 'cannot download filter list; using the last copy if any');
    return readFile(copy, 'utf8').catch(() => undefined);
  }
}
