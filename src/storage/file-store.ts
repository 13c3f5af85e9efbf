/** What is stored: one capture. */
export interface StoreInput {
  body: Buffer;
  contentType: string;
  /** File extension of the format, without the dot. */
  extension: string;
  /** Download name (attachment_name with its extension), or undefined for inline. */
  downloadName?: string;
}

/** Where a stored capture can be fetched. */
export interface StoredFile {
  /** Absolute URL, or a path under the service's own origin (local store). */
  url: string;
  /** When the URL stops working; null when it does not expire (operator's public base URL). */
  expiresAt: Date | null;
}

/** A place to keep captures for upload=1: the local data dir or an S3-compatible bucket. */
export interface FileStore {
  put(input: StoreInput): Promise<StoredFile>;
  /** Named objects of the capture cache (name: hex, no path): written, read back, removed. */
  putObject(name: string, body: Buffer, contentType: string): Promise<void>;
  getObject(name: string): Promise<Buffer | null>;
  deleteObject(name: string): Promise<void>;
  close(): Promise<void>;
}
