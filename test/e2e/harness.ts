import type { FastifyInstance } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import type { KeyStore } from '../../src/accounts/key-store.js';
import type { AccountServices } from '../../src/accounts/services.js';
import type { ChromiumEngine } from '../../src/capture/chromium-engine.js';
import { loadConfig } from '../../src/config/load.js';
import type { Resolver } from '../../src/egress/resolver.js';
import { createEngine, createService } from '../../src/service.js';

export interface Service {
  app: FastifyInstance;
  engine: ChromiumEngine;
  keys: KeyStore;
  /** A valid API key for the apikey header. */
  apiKey: string;
  accounts: AccountServices;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** SHUTTER_ALLOWED_PRIVATE_NETWORKS; the fixture server lives on 127.0.0.1. */
  allowedPrivateNetworks?: string;
  /** Start Chromium now (false for apps whose requests never reach the browser). */
  startBrowser?: boolean;
  env?: Record<string, string>;
  /** Name resolution for the target check and the egress proxy (staticResolver maps test names to fixture servers). */
  resolve?: Resolver;
  /** Keep files (upload=1, debug bundles) in the local store under the data dir; none by default. */
  store?: boolean;
  /** 'config': accounts as `shutter serve` opens them (the SQLite file in the data dir, SHUTTER_PLANS_FILE); default in memory. */
  accounts?: 'memory' | 'config';
}

/** The real service in-process (createService): Chromium engine, in-memory accounts, Fastify app. */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const dataDir = await mkdtemp(join(tmpdir(), 'shutter-e2e-'));
  const logger = pino({ level: 'silent' });
  const config = loadConfig({
    ...process.env,
    SHUTTER_ALLOWED_PRIVATE_NETWORKS: options.allowedPrivateNetworks ?? '127.0.0.0/8',
    SHUTTER_DATA_DIR: dataDir,
    ...options.env,
  });
  // The engine's concrete type stays visible to tests (pool status, browser restarts).
  const engine = createEngine(config, logger, { resolve: options.resolve });
  let service: Awaited<ReturnType<typeof createService>> | undefined;
  try {
    service = await createService(config, {
      logger,
      engine,
      accounts: options.accounts ?? 'memory',
      ...(options.resolve ? { resolve: options.resolve } : {}),
      ...(options.store ? {} : { store: null }),
      version: 'test',
    });
    if (options.startBrowser ?? true) await service.start();
    const { key } = await service.accounts.keys.create({ name: 'e2e' });
    await service.app.ready();
    const ready = service;
    return {
      app: ready.app,
      engine,
      keys: ready.accounts.keys,
      apiKey: key,
      accounts: ready.accounts,
      async close() {
        await ready.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await (service ? service.close() : engine.close());
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** GET /v1/take with the service's key, and how long the answer took (ms). */
export async function timedTake(service: Service, query: Record<string, string>) {
  const started = performance.now();
  const res = await service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });
  return { res, ms: performance.now() - started };
}

export type Rgb = [number, number, number];

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  /** The decoded pixels, for whole-image comparisons. */
  raw: Buffer;
  at(x: number, y: number): Rgb;
}

/** Decodes any image sharp reads into raw pixels. */
export async function pixels(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    raw: data,
    at(x: number, y: number): Rgb {
      if (x < 0 || y < 0 || x >= info.width || y >= info.height) {
        throw new Error(`pixel (${x}, ${y}) is outside the ${info.width}×${info.height} image`);
      }
      const i = (y * info.width + x) * info.channels;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

export const RED: Rgb = [255, 0, 0];
export const GREEN: Rgb = [0, 255, 0];
export const BLUE: Rgb = [0, 0, 255];
export const WHITE: Rgb = [255, 255, 255];
export const YELLOW: Rgb = [255, 255, 0];
export const CYAN: Rgb = [0, 255, 255];
export const MAGENTA: Rgb = [255, 0, 255];

/** Largest per-channel difference between two colours. */
export function colourDistance(a: Rgb, b: Rgb): number {
  return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2]));
}

/** Name of the closest reference colour, for readable assertion messages. */
export function nameOf(c: Rgb, tolerance = 24): string {
  const named: Array<[string, Rgb]> = [
    ['red', RED],
    ['green', GREEN],
    ['blue', BLUE],
    ['white', WHITE],
    ['yellow', YELLOW],
    ['cyan', CYAN],
    ['magenta', MAGENTA],
  ];
  for (const [name, ref] of named) if (colourDistance(c, ref) <= tolerance) return name;
  return `rgb(${c.join(', ')})`;
}
