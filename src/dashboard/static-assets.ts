import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** The files under /dashboard/assets/: only these names are served, never a path from the request. */
const ASSETS = {
  'style.css': 'text/css; charset=utf-8',
  'playground.js': 'text/javascript; charset=utf-8',
} as const;

/**
 * src/dashboard/static, found from this module whether it runs from src/ (tests) or dist/src/
 * (the service): tsc copies no CSS or JS, so both read the sources.
 */
export function staticDir(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'dashboard', 'static');
  }
  throw new Error(`no package.json above ${from}`);
}

/** GET /assets/<name>: read once at start, with an ETag so browsers revalidate cheaply. */
export function assetRoutes(app: FastifyInstance, dir = staticDir()): void {
  for (const [name, type] of Object.entries(ASSETS)) {
    const body = readFileSync(join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    app.get(`/assets/${name}`, async (request, reply) => {
      reply.header('content-type', type).header('cache-control', 'public, max-age=3600').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    });
  }
}
