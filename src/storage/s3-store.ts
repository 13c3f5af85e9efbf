import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStore, StoreInput, StoredFile } from './file-store.js';
import { checkCacheObjectName, newObjectName } from './object-name.js';
import { contentDisposition } from '../util/content-disposition.js';

export interface S3StoreOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  prefix: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Operator's public base URL for the bucket; links then do not expire. */
  publicBaseUrl?: string;
  ttlSeconds: number;
}

/** Captures in an S3-compatible bucket, linked by a presigned GET URL (or the operator's public URL). */
export class S3Store implements FileStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3StoreOptions) {
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  }

  async put(input: StoreInput): Promise<StoredFile> {
    const key = `${this.options.prefix}${newObjectName(input.extension)}`;
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: input.body,
        ContentType: input.contentType,
        ContentDisposition: input.downloadName ? contentDisposition('attachment', input.downloadName) : 'inline',
      }),
    );
    if (this.options.publicBaseUrl) {
      return { url: `${this.options.publicBaseUrl.replace(/\/+$/, '')}/${key}`, expiresAt: null };
    }
    const url = await getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.options.bucket, Key: key }), {
      expiresIn: this.options.ttlSeconds,
    });
    return { url, expiresAt: new Date(Date.now() + this.options.ttlSeconds * 1000) };
  }

  async putObject(name: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.options.bucket, Key: this.cacheKey(name), Body: body, ContentType: contentType }),
    );
  }

  async getObject(name: string): Promise<Buffer | null> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.cacheKey(name) }));
      return answer.Body ? Buffer.from(await answer.Body.transformToByteArray()) : null;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  async deleteObject(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.cacheKey(name) }));
  }

  private cacheKey(name: string): string {
    return `${this.options.prefix}cache/${checkCacheObjectName(name)}`;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
