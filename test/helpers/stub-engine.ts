import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import sharp from 'sharp';
import type { Account } from '../../src/accounts/account-store.js';
import type { ApiKeyRecord } from '../../src/accounts/key-store.js';
import type { Plans } from '../../src/accounts/plans.js';
import { createAccountServices, type AccountServices } from '../../src/accounts/services.js';
import type { KeyStore } from '../../src/accounts/key-store.js';
import type { CaptureEngine, CaptureResult, EngineStatus } from '../../src/capture/engine.js';
import type { PendingRequest } from '../../src/capture/request-tracker.js';
import type { Timings } from '../../src/capture/timings.js';
import { openSqlite, sqliteDb } from '../../src/db/sqlite.js';
import { loadConfig } from '../../src/config/load.js';
import { createService } from '../../src/service.js';
import type { FileStore } from '../../src/storage/file-store.js';
import { formatOf, type Format } from '../../src/formats/registry.js';
import type { TakeOptions } from '../../src/options/schema.js';

/** A 4×3 opaque red image: small, real, and recognisable in every encoding. */
const SOURCE = { create: { width: 4, height: 3, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } } as const;

const cache = new Map<Format, Promise<Buffer>>();

/** A small but real file of the format (pdf and markdown are minimal text stand-ins). */
export function sampleFile(format: Format): Promise<Buffer> {
  let file = cache.get(format);
  if (!file) {
    const image = sharp(SOURCE);
    switch (format) {
      case 'png':
        file = image.png().toBuffer();
        break;
      case 'jpg':
        file = image.jpeg().toBuffer();
        break;
      case 'webp':
        file = image.webp().toBuffer();
        break;
      case 'avif':
        file = image.avif().toBuffer();
        break;
      case 'gif':
        file = image.gif().toBuffer();
        break;
      case 'pdf':
        file = Promise.resolve(Buffer.from('%PDF-1.4\n% stub\n%%EOF\n'));
        break;
      case 'markdown':
        file = Promise.resolve(Buffer.from('# Stub capture\n'));
        break;
      case 'html':
        file = Promise.resolve(Buffer.from('<!doctype html><h1>Stub capture</h1>\n'));
        break;
      case 'mp4':
      case 'webm':
        // Not a playable video: the stub's callers check how it is delivered, not its frames.
        file = Promise.resolve(Buffer.from(`stub ${format}\n`));
        break;
    }
    cache.set(format, file);
  }
  return file;
}

/** The PNG every png capture of the stub returns. */
export const samplePng = (): Promise<Buffer> => sampleFile('png');

export interface StubEngineOptions {
  /** Thrown (as a rejection) by every capture while not undefined (null and plain values are thrown too). */
  error?: unknown;
  /** Milliseconds each capture takes. */
  delayMs?: number;
  /** Reported by status(). */
  status?: EngineStatus;
  ready?: boolean;
  truncated?: 'height';
  /** Answer as a partial load with these requests pending (X-Shutter-Warning: partial_load). */
  partial?: PendingRequest[];
}

/** A CaptureEngine without a browser: records what it was asked and answers with a small real file. */
export class StubEngine implements CaptureEngine {
  /** The options of every capture call, in order. */
  readonly calls: TakeOptions[] = [];
  error: unknown;
  delayMs: number;
  engineStatus: EngineStatus;
  isReady: boolean;
  truncated: 'height' | undefined;
  partial: PendingRequest[] | undefined;
  closed = false;

  constructor(options: StubEngineOptions = {}) {
    this.error = options.error;
    this.delayMs = options.delayMs ?? 0;
    this.engineStatus = options.status ?? { browser: 'StubChromium/1.0', pool: { size: 2, busy: 0, queued: 0 } };
    this.isReady = options.ready ?? true;
    this.truncated = options.truncated;
    this.partial = options.partial;
  }

  /** The options of the most recent capture call. */
  get last(): TakeOptions | undefined {
    return this.calls.at(-1);
  }

  async capture(options: TakeOptions, timings: Timings): Promise<CaptureResult> {
    this.calls.push(options);
    await timings.measure('queue', async () => undefined);
    return timings.measure('capture', async () => {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (this.error !== undefined) throw this.error;
      const body = await sampleFile(options.format);
      return {
        body,
        format: options.format,
        contentType: formatOf(options.format).contentType,
        ...(this.truncated ? { truncated: this.truncated } : {}),
        ...(this.partial ? { warnings: ['partial_load' as const], pendingRequests: this.partial } : {}),
      };
    });
  }

  status(): EngineStatus {
    return this.engineStatus;
  }

  ready(): boolean {
    return this.isReady;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface TestAppOverrides {
  engine?: StubEngine;
  /** Options for the StubEngine made when no engine is given. */
  stub?: StubEngineOptions;
  logger?: Logger;
  countries?: string[];
  version?: string;
  /** Plans in force (default: DESIGN.md's). */
  plans?: Plans;
  /** The plan of the test key's account; by default the key is the operator's (plan scale). */
  plan?: string;
  /** The meter's clock (quota periods). */
  clock?: () => Date;
  trustProxy?: boolean;
  /** Dashboard sign-ups (default open). */
  signups?: boolean;
  /** Where upload=1 stores captures (default: none, upload answers 501). */
  store?: FileStore;
  publicUrl?: string;
}

export interface TestApp {
  app: FastifyInstance;
  /** The secret of the key created for the test. */
  key: string;
  record: ApiKeyRecord;
  keys: KeyStore;
  engine: StubEngine;
  db: Database.Database;
  /** Accounts, plans, usage and limits over the same in-memory database. */
  accounts: AccountServices;
  /** The account of the test key. */
  account: Account;
}

/** The HTTP app over an in-memory database holding one key, a stub engine and a silent logger. */
/** The stub app's SHUTTER_SIGNING_SECRET. */
export const TEST_SIGNING_SECRET = 'test-signing-secret-0123456789abcdef-0123456789';

export async function buildTestApp(overrides: TestAppOverrides = {}): Promise<TestApp> {
  const db = await openSqlite(':memory:');
  const accounts = createAccountServices({
    db: sqliteDb(db),
    plans: overrides.plans,
    clock: overrides.clock,
    signups: overrides.signups,
  });
  const account = overrides.plan
    ? await accounts.accounts.create({ email: 'test@shutter.test', plan: overrides.plan }).then((r) => {
        if (!r.ok) throw new Error(r.message);
        return r.value;
      })
    : await accounts.accounts.ensureOperator();
  const { key, record } = await accounts.keys.create({ name: 'test', accountId: account.id });
  const engine = overrides.engine ?? new StubEngine(overrides.stub);
  const config = loadConfig({
    SHUTTER_TRUST_PROXY: overrides.trustProxy ? '1' : '0',
    // Signed links derive every key's secret from it (and nothing is written to ./data).
    SHUTTER_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SHUTTER_PUBLIC_URL: overrides.publicUrl ?? '',
    // Countries with a proxy the stub engine never dials.
    SHUTTER_PROXIES: JSON.stringify(Object.fromEntries((overrides.countries ?? []).map((c) => [c, 'http://127.0.0.1:9']))),
  });
  const { app } = await createService(config, {
    engine,
    accounts,
    logger: overrides.logger ?? pino({ level: 'silent' }),
    version: overrides.version ?? 'test',
    store: overrides.store ?? null,
  });
  await app.ready();
  return { app, key, record, keys: accounts.keys, engine, db, accounts, account };
}
