import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { FileStore, StoreInput, StoredFile } from './file-store.js';
import { checkCacheObjectName, newObjectName, OBJECT_NAME } from './object-name.js';
import type { UrlSigner } from './url-signer.js';

export interface LocalStoreOptions {
  dir: string;
  signer: UrlSigner;
  /** Lifetime of links and files. */
  ttlSeconds: number;
  logger: Logger;
}

/** What is kept beside each file. */
interface Sidecar {
  contentType: string;
  downloadName?: string;
  expiresAt: string;
}

/** A stored file found by a valid link. */
export interface LocalFile {
  path: string;
  contentType: string;
  downloadName?: string;
  size: number;
}

const SWEEP_MS = 10 * 60_000;

/**
 * Captures in a directory (created by createStore, once), served by the service at /v1/files/<name>?expires=…&sig=… without
 * an API key. Files are removed once expired by a sweep every 10 minutes.
 */
export class LocalStore implements FileStore {
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: LocalStoreOptions) {
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  async put(input: StoreInput): Promise<StoredFile> {
    const name = newObjectName(input.extension);
    const expiresAt = new Date(Date.now() + this.options.ttlSeconds * 1000);
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const sidecar: Sidecar = { contentType: input.contentType, expiresAt: expiresAt.toISOString() };
    if (input.downloadName) sidecar.downloadName = input.downloadName;
    await writeFile(join(this.options.dir, name), input.body);
    await writeFile(join(this.options.dir, `${name}.json`), JSON.stringify(sidecar));
    const sig = this.options.signer.sign(name, expires);
    return { url: `/v1/files/${name}?expires=${expires}&sig=${sig}`, expiresAt };
  }

  async putObject(name: string, body: Buffer): Promise<void> {
    const path = this.cachePath(name);
    await mkdir(join(this.options.dir, 'cache'), { recursive: true });
    // Written whole, then renamed: a reader on another request never sees half a file.
    await writeFile(`${path}.tmp`, body);
    await rename(`${path}.tmp`, path);
  }

  async getObject(name: string): Promise<Buffer | null> {
    return readFile(this.cachePath(name)).catch(() => null);
  }

  async deleteObject(name: string): Promise<void> {
    await rm(this.cachePath(name), { force: true });
  }

  private cachePath(name: string): string {
    return join(this.options.dir, 'cache', checkCacheObjectName(name));
  }

  /** The file behind a link, or null when the link is not ours, was altered or has expired. */
  async open(name: string, expires: string, signature: string): Promise<LocalFile | null> {
    const expiresUnix = Number(expires);
    if (!OBJECT_NAME.test(name) || !/^\d{1,12}$/.test(expires) || !signature) return null;
    if (!this.options.signer.verify(name, expiresUnix, signature)) return null;
    if (expiresUnix * 1000 < Date.now()) return null;
    try {
      const path = join(this.options.dir, name);
      const sidecar = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Sidecar;
      const { size } = await stat(path);
      return { path, contentType: sidecar.contentType, downloadName: sidecar.downloadName, size };
    } catch {
      return null;
    }
  }

  /** Removes files whose links have expired. */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const entry of await readdir(this.options.dir).catch(() => [] as string[])) {
      if (!entry.endsWith('.json') || !OBJECT_NAME.test(entry.slice(0, -5))) continue;
      const sidecarPath = join(this.options.dir, entry);
      try {
        const sidecar = JSON.parse(await readFile(sidecarPath, 'utf8')) as Sidecar;
        if (Date.parse(sidecar.expiresAt) > now) continue;
      } catch {
        // An unreadable sidecar: the file cannot be served anyway.
      }
      await rm(sidecarPath.slice(0, -5), { force: true });
      await rm(sidecarPath, { force: true });
      removed++;
    }
    if (removed) this.options.logger.info({ removed }, 'removed expired stored captures');
    return removed;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}
