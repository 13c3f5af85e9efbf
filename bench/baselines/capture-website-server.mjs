/**
 * Baseline (c): capture-website (https://github.com/sindresorhus/capture-website, Puppeteer), used per
 * request as its README shows: `captureWebsite.buffer(url, options)`, which launches a browser,
 * captures and closes it. Pointed at the same Debian Chromium as Shutter (BENCH_CHROMIUM).
 * Options changed from its defaults, and why:
 * - scaleFactor 1 (default 2): the same 1280×800 image as the other engines, not 4× the pixels;
 * - blockAds false (default true): its ad blocker downloads a prebuilt engine from the internet;
 *   the bench is offline.
 * Everything else stays at its defaults, including waiting for networkidle2 (≥ 500 ms of quiet).
 * A plain .mjs so the root typecheck needs no Puppeteer types; capture-website is installed in
 * bench/node_modules (`cd bench && PUPPETEER_SKIP_DOWNLOAD=1 npm install`).
 */
import { createServer } from 'node:http';
import captureWebsite from 'capture-website';

const port = Number(process.env.BENCH_PORT);
const executablePath = process.env.BENCH_CHROMIUM;
if (!Number.isInteger(port) || port <= 0 || !executablePath) {
  console.error('BENCH_PORT and BENCH_CHROMIUM must be set');
  process.exit(1);
}

const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };
const KNOWN = new Set(['url', 'format', 'full_page', 'quality', 'viewport_width', 'viewport_height']);

/** The query of `GET /v1/take` as capture-website options, or a string: the reason for a 400. */
function parse(rawUrl) {
  const query = new URL(rawUrl, 'http://127.0.0.1').searchParams;
  for (const key of query.keys()) if (!KNOWN.has(key)) return `unsupported parameter ${key}`;
  const url = query.get('url');
  if (!url || !/^https?:\/\//.test(url)) return 'url is required';
  const format = (query.get('format') ?? 'png').replace(/^jpg$/, 'jpeg');
  if (!(format in CONTENT_TYPES)) return `unsupported format ${format}`;
  const options = {
    width: Number(query.get('viewport_width') ?? 1280),
    height: Number(query.get('viewport_height') ?? 800),
    scaleFactor: 1,
    type: format,
    fullPage: query.get('full_page') === '1' || query.get('full_page') === 'true',
    blockAds: false,
    launchOptions: {
      executablePath,
      // The headless shell is Chromium's old headless mode; Puppeteer calls it 'shell'.
      headless: executablePath.includes('headless-shell') ? 'shell' : true,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    },
  };
  if (format !== 'png') options.quality = Number(query.get('quality') ?? 80) / 100;
  return { url, format, options };
}

const server = createServer((req, res) => {
  if (req.method !== 'GET' || !req.url?.startsWith('/v1/take')) return res.writeHead(404).end();
  const request = parse(req.url);
  if (typeof request === 'string') return res.writeHead(400, { 'content-type': 'text/plain' }).end(request);
  captureWebsite.buffer(request.url, request.options).then(
    (body) => res.writeHead(200, { 'content-type': CONTENT_TYPES[request.format], 'content-length': body.length }).end(body),
    (error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error?.message ?? error)),
  );
});
server.listen(port, '127.0.0.1');
// Browsers live only for one request each; the bench kills any left in this process tree.
process.once('SIGTERM', () => process.exit(0));
process.once('SIGINT', () => process.exit(0));
