import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfText } from '../helpers/pdf-text.js';
import { startService, type Service } from './harness.js';

// Issue 35: growing the viewport before printing or a full page costs a paint of the whole page, so
// it is done only for a page with a script lazy loader (it observes intersections, or has lazy-loader
// markup). Both branches: lazy content still prints; a page without such signs is never resized.

let service: Service;

beforeAll(async () => {
  service = await startService();
});

afterAll(async () => {
  await service?.close();
});

const take = (query: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });

/** Every resize the page sees is written into it, so the PDF's text says whether it was grown. */
const RESIZE_LOG = `<p id="log">resizes:</p><script>addEventListener('resize', () => { document.getElementById('log').textContent += ' resized'; });</script>`;

const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>.spacer{height:3000px}</style></head><body>${RESIZE_LOG}${body}</body></html>`;

/** An IntersectionObserver loader: the box says LOADED only once it has been in view. */
const OBSERVED = page(`<div class="spacer"></div><div id="box">placeholder</div>
<script>new IntersectionObserver((entries, o) => { for (const e of entries) if (e.isIntersecting) { e.target.textContent = 'LOADED BY OBSERVER'; o.disconnect(); } }).observe(document.getElementById('box'));</script>`);

/** Lazy-loader markup (data-src) without any observer running: the sign is the markup alone. */
const MARKUP = page(
  `<div class="spacer"></div><img class="lazyload" data-src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""><p>after the image</p>`,
);

/** Native lazy loading only, of an image that never loads (a dead host). */
const NATIVE = page(`<div class="spacer"></div><img loading="lazy" src="http://unresolvable.invalid/a.png" alt=""><p>after the image</p>`);

/** Which lazy images were switched to eager, written into the page as it happens. */
const SWITCHES = page(`<p id="switches">switches:</p><div class="spacer"></div>
<img id="shown" loading="lazy" src="http://unresolvable.invalid/a.png" alt="" width="10" height="10">
<div style="display:none"><img id="hidden" loading="lazy" src="http://unresolvable.invalid/b.png" alt=""></div>
<script>new MutationObserver((records) => { for (const r of records) document.getElementById('switches').textContent += ' switched ' + r.target.id; })
  .observe(document.body, { subtree: true, attributeFilter: ['loading'] });</script>`);

/** A long page with nothing lazy in it. */
const PLAIN = page(`<div class="spacer"></div><p>THE END OF A PLAIN PAGE</p>`);

const pdfOf = async (html: string) => {
  const res = await take({ html, format: 'pdf' });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return (await pdfText(res.rawPayload)).text.replace(/\s+/g, ' ');
};

describe('lazy content before printing', () => {
  it('a page that observes intersections is grown: its observed box prints loaded', async () => {
    const text = await pdfOf(OBSERVED);
    expect(text).toContain('LOADED BY OBSERVER');
    expect(text).toContain('resized');
  });

  it('a page with lazy-loader markup is grown too', async () => {
    expect(await pdfOf(MARKUP)).toContain('resized');
  });

  it('a page with native lazy images is grown too (printing right after switching them to eager waits ~2 s in Chromium)', async () => {
    expect(await pdfOf(NATIVE)).toContain('resized');
  });

  it('a lazy image that is not rendered (display: none) stays lazy; a rendered one is switched to eager', async () => {
    const text = await pdfOf(SWITCHES);
    expect(text).toContain('switched shown');
    expect(text).not.toContain('switched hidden');
  });

  it('a page with no sign of a lazy loader is printed without resizing it', async () => {
    const text = await pdfOf(PLAIN);
    expect(text).toContain('THE END OF A PLAIN PAGE');
    expect(text).toContain('resizes:');
    expect(text).not.toContain('resized');
  });

  it('a full-page capture (read as markdown) of a page that observes intersections has the loaded box; a plain one is not resized', async () => {
    const res = await take({ html: OBSERVED, format: 'markdown', full_page: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('LOADED BY OBSERVER');
    const plain = await take({ html: PLAIN, format: 'markdown', full_page: '1' });
    expect(plain.body).toContain('THE END OF A PLAIN PAGE');
    expect(plain.body).not.toContain('resized');
  });
});
