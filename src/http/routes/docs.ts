import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineRoute } from '../route.js';

/**
 * GET /docs: the API reference, Swagger UI rendering GET /openapi.json. Everything the page loads
 * comes from this service (swagger-ui-dist out of node_modules, no CDN), so it works offline; the
 * page's Content-Security-Policy holds it to that.
 */

/** What the page may load: only its own origin. Swagger UI's icons are data: images in its CSS. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Our start-up script, a file of its own because the CSP forbids inline scripts. No validator
 * badge (it would fetch validator.swagger.io), no ?url=/?configUrl= from the address bar (Swagger
 * UI's query config renders any document it is pointed at), no top bar to load another document.
 * "Try it out" stays: Authorize takes a key for the apikey header (the document's securitySchemes),
 * kept in the page only, never in storage.
 */
const INIT_JS = `'use strict';
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  queryConfigEnabled: false,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
});
`;

/** One file under /docs/assets/, with its validator. */
export interface Asset {
  type: string;
  body: Buffer;
  etag: string;
  /** Compressed on the first request that accepts gzip (text types only), off the event loop. */
  gzipped?: Promise<Buffer>;
}

const gzipAsync = promisify(gzip);

/** The files under /docs/assets/: these names only, never a path from the request. */
const FROM_PACKAGE = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

/** The swagger-ui-dist package folder, wherever npm put it. */
export function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

function asset(type: string, body: Buffer): Asset {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Read once, when the routes are registered. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FROM_PACKAGE)) assets.set(name, asset(type, readFileSync(join(dir, name))));
  assets.set('init.js', asset('text/javascript; charset=utf-8', Buffer.from(INIT_JS)));
  return assets;
}

/** `name?v=<etag>`: a new Swagger UI (or init script) is a new URL, so a year of caching is safe. */
const versioned = (assets: Map<string, Asset>, name: string) => `/docs/assets/${name}?v=${assets.get(name)!.etag.slice(1, 13)}`;

function page(assets: Map<string, Asset>): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Shutter</title>
<link rel="icon" type="image/png" href="${versioned(assets, 'favicon-32x32.png')}">
<link rel="stylesheet" href="${versioned(assets, 'swagger-ui.css')}"></head>
<body><div id="swagger-ui"><noscript><p>The API reference needs JavaScript. The OpenAPI document is at
<a href="/openapi.json">/openapi.json</a>; the reference in text is docs/api.md.</p></noscript></div>
<script src="${versioned(assets, 'swagger-ui-bundle.js')}"></script>
<script src="${versioned(assets, 'init.js')}"></script>
</body></html>
`;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin').header('x-frame-options', 'DENY');
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));

/** The page and its assets, read once from the swagger-ui-dist folder when the app is built. */
export interface DocsDeps {
  assets: Map<string, Asset>;
  html: string;
}

/** Reads the page's assets from `dir` (swagger-ui-dist's folder) and renders the page once. */
export function docsDeps(dir = swaggerUiDir()): DocsDeps {
  const assets = loadAssets(dir);
  return { assets, html: page(assets) };
}

const ASSET_NAMES = [...Object.keys(FROM_PACKAGE), 'init.js'];

/** GET /docs and GET /docs/assets/<name>; public, like /openapi.json. */
export const docsRoutes = [
  defineRoute<DocsDeps>({
    method: 'GET',
    url: '/docs',
    auth: 'none',
    handler:
      ({ html }) =>
      async (_request, reply) => {
        securityHeaders(reply).header('content-security-policy', CSP).header('cache-control', 'no-cache');
        return reply.type('text/html; charset=utf-8').send(html);
      },
  }),
  // One route per file, so no name from the request ever reaches a path.
  ...ASSET_NAMES.map((name) =>
    defineRoute<DocsDeps>({
      method: 'GET',
      url: `/docs/assets/${name}`,
      auth: 'none',
      handler: ({ assets }) => {
        const file = assets.get(name)!;
        const compressible = !file.type.startsWith('image/');
        return async (request, reply) => {
          const gzipped = compressible && acceptsGzip(request);
          // Each encoding is its own representation, with its own ETag.
          const etag = gzipped ? `${file.etag.slice(0, -1)}-gz"` : file.etag;
          securityHeaders(reply)
            .header('content-type', file.type)
            .header('cache-control', 'public, max-age=31536000, immutable')
            .header('etag', etag);
          if (compressible) reply.header('vary', 'accept-encoding');
          if (request.headers['if-none-match'] === etag) return reply.code(304).send();
          if (!gzipped) return reply.send(file.body);
          file.gzipped ??= gzipAsync(file.body, { level: 9 });
          return reply.header('content-encoding', 'gzip').send(await file.gzipped);
        };
      },
    }),
  ),
];
