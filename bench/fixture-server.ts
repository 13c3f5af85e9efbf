/**
 * The benchmark's fixture site on 127.0.0.1, in a process of its own so it does not share an event
 * loop with the load generator. Serves bench/fixtures/*.html and images it makes at start (no
 * internet): PNG photos with gradients and grain (so they cost real decode time), SVG logos,
 * avatars and figures. Run by bench/run.ts with BENCH_PORT set.
 *
 * Real pages (issue 23): `/article-hang.html` is article.html with one tracking pixel on this
 * server, `/hang/…`, put where its `<!-- bench:hang -->` marker is. A `/hang/…` request is accepted
 * and never answered; the held requests are destroyed when the server stops, so it always can.
 *
 * Full pages (issue 21): `/tall-<px>.html` is a page exactly that many CSS px tall, made of 500 px
 * sections of the same kind (heading, text, a row of tinted boxes), so a full-page capture's time
 * and bytes can be fitted against its height.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { fixturePhoto } from './lib/fixture-photo.js';

const FIXTURES = new URL('../../bench/fixtures/', import.meta.url);
/** Debian's fonts-liberation (installed with Chromium by `make start`). */
const SLOW_FONT = '/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf';
const PHOTO_VARIANTS = 16;
const HANG_MARKER = '<!-- bench:hang -->';
/** What article-hang.html has in place of the marker: a tracker's pixel whose server never answers. */
const HANG_PIXEL = '<img class="px" src="/hang/px.gif?ev=pageview&amp;aid=nf-20261118-0412" width="1" height="1" alt="">';

/** article-hang.html from article.html. */
function withHangingPixel(article: Buffer): Buffer {
  const html = article.toString('utf8');
  if (!html.includes(HANG_MARKER)) throw new Error(`article.html has no ${HANG_MARKER} marker`);
  return Buffer.from(html.replace(HANG_MARKER, HANG_PIXEL), 'utf8');
}

const logo = (i: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="48" viewBox="0 0 120 48"><rect width="120" height="48" rx="8" fill="hsl(${(i * 37) % 360} 45% 92%)"/>` +
  `<circle cx="24" cy="24" r="12" fill="hsl(${(i * 37) % 360} 60% 45%)"/><text x="44" y="30" font-family="Liberation Sans, Arial" font-size="15" font-weight="700" fill="#1f2933">Brand ${i + 1}</text></svg>`;
const avatar = (i: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="56" height="56" viewBox="0 0 56 56"><rect width="56" height="56" fill="hsl(${(i * 53) % 360} 55% 70%)"/>` +
  `<circle cx="28" cy="22" r="11" fill="#fff" opacity=".9"/><ellipse cx="28" cy="52" rx="20" ry="15" fill="#fff" opacity=".9"/></svg>`;
const figure = (i: number) => {
  const bars = Array.from({ length: 10 }, (_, k) => {
    const h = 30 + ((i * 31 + k * 57) % 170);
    return `<rect x="${40 + k * 58}" y="${210 - h}" width="40" height="${h}" fill="hsl(${(i * 40 + k * 9) % 360} 60% 50%)"/>`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="240" viewBox="0 0 640 240"><rect width="640" height="240" fill="#f8fafc"/>${bars}<line x1="30" y1="210" x2="620" y2="210" stroke="#334155"/></svg>`;
};

/** Height of one section of a tall page, CSS px. */
const TALL_SECTION = 500;

/** A page `height` CSS px tall: sections of the same kind (text and tinted boxes), then filler to the exact height. */
function tallPage(height: number): string {
  const sections = Math.floor(height / TALL_SECTION);
  const rest = height - sections * TALL_SECTION;
  const body = Array.from({ length: sections }, (_, i) => {
    const hue = (i * 29) % 360;
    const boxes = Array.from(
      { length: 4 },
      (_, k) =>
        `<div class="box" style="background:hsl(${(hue + k * 40) % 360} 55% 88%)"><b>Item ${i * 4 + k + 1}</b><span>${k + 2} min read</span></div>`,
    ).join('');
    return (
      `<section><h2>Section ${i + 1}: notes on capture number ${i + 1}</h2>` +
      `<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit ${i}. Integer nec odio. Praesent libero. Sed cursus ante dapibus diam. ` +
      'Sed nisi. Nulla quis sem at nibh elementum imperdiet. Duis sagittis ipsum. Praesent mauris. Fusce nec tellus sed augue semper porta. ' +
      'Mauris massa. Vestibulum lacinia arcu eget nulla. Class aptent taciti sociosqu ad litora torquent per conubia nostra.</p>' +
      `<div class="row">${boxes}</div></section>`
    );
  }).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tall page, ${height} px</title><style>` +
    'html,body{margin:0;padding:0}body{font-family:"Liberation Sans",Arial,sans-serif;color:#1f2933;background:#f5f7fa}' +
    `section{height:${TALL_SECTION}px;box-sizing:border-box;padding:32px 64px;overflow:hidden;border-bottom:1px solid #d9e2ec}` +
    'h2{margin:0 0 12px;font-size:28px}p{margin:0 0 20px;font-size:16px;line-height:1.6;color:#52606d;max-width:1000px}' +
    '.row{display:grid;grid-template-columns:repeat(4,1fr);gap:20px}.box{height:180px;border-radius:10px;padding:16px;box-sizing:border-box;' +
    'box-shadow:0 2px 8px rgba(0,0,0,.08);display:flex;flex-direction:column;justify-content:space-between}.box span{font-size:13px;color:#52606d}' +
    `.rest{height:${rest}px}</style></head><body>${body}${rest ? '<div class="rest"></div>' : ''}</body></html>`
  );
}

async function main() {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('BENCH_PORT must be set');
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(FIXTURES)) if (name.endsWith('.html')) files.set(`/${name}`, readFileSync(new URL(name, FIXTURES)));
  files.set('/article-hang.html', withHangingPixel(files.get('/article.html')!));
  /** Requests to /hang/… held open: never answered, destroyed on stop. */
  const held = new Set<ServerResponse>();
  const photos = await Promise.all(Array.from({ length: PHOTO_VARIANTS }, (_, v) => fixturePhoto(400, 260, v)));
  const hero = await fixturePhoto(1280, 420, 99);
  const svgs = new Map<string, string>();

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/hang/')) {
      held.add(res);
      res.once('close', () => held.delete(res));
      return;
    }
    if (path === '/font/slow.ttf') {
      // A web font that arrives 700 ms late (late-font.html, font-display: swap).
      const timer = setTimeout(() => {
        try {
          res.writeHead(200, { 'content-type': 'font/ttf', 'cache-control': 'no-store' }).end(readFileSync(SLOW_FONT));
        } catch {
          res.writeHead(404).end();
        }
      }, 700);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/api/late.json') {
      // A client-rendered page's API: answers after 800 ms (late.html).
      const timer = setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end('{"items":6}'),
        800,
      );
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/api/slides.json') {
      // A carousel's slides: the API answers after 600 ms (carousel.html).
      const slides = ['#c0392b', '#2471a3', '#1e8449'].map((color, i) => ({ color, title: `Sale ${i + 1}` }));
      const timer = setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ slides })),
        600,
      );
      res.once('close', () => clearTimeout(timer));
      return;
    }
    const tall = /^\/tall-(\d{3,6})\.html$/.exec(path);
    if (tall && Number(tall[1]) <= 200_000) {
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(tallPage(Number(tall[1])));
    }
    const page = files.get(path);
    if (page) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(page);
    let m: RegExpMatchArray | null;
    if (path === '/img/hero.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(hero);
    if ((m = /^\/img\/photo-(\d{1,4})\.png$/.exec(path))) {
      return res.writeHead(200, { 'content-type': 'image/png' }).end(photos[Number(m[1]) % PHOTO_VARIANTS]);
    }
    if ((m = /^\/img\/(logo|avatar|figure)-(\d{1,4})\.svg$/.exec(path))) {
      const key = path;
      if (!svgs.has(key)) {
        const n = Number(m[2]);
        svgs.set(key, m[1] === 'logo' ? logo(n) : m[1] === 'avatar' ? avatar(n) : figure(n));
      }
      return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svgs.get(key));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.listen(port, '127.0.0.1');
  // Nothing to flush: a static server may stop at once, held requests included.
  const stop = () => {
    for (const res of held) res.destroy();
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
