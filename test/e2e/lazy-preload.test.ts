import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { pdfText } from '../helpers/pdf-text.js';
import { startService, type Service } from './harness.js';

// Issue 35: growing the viewport before printing or a full page costs a paint of the whole page, so
// it is done only for a page with a script lazy loader (it observes intersections, or has lazy-loader
// markup). Both branches: lazy content still prints; a page without such signs is never resized.
// Native lazy images and iframes are no such sign: a full page switches them to eager, a print
// leaves them to Chromium, which loads them itself (switched first, some prints waited ~2 s).

let service: Service;
let fixture: FixtureServer;
let dir: string;

beforeAll(async () => {
  service = await startService();
  fixture = await startFixtureServer();
  dir = mkdtempSync(join(tmpdir(), 'shutter-lazy-'));
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
  if (dir) rmSync(dir, { recursive: true, force: true });
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
<picture><img id="pictured" loading="lazy" src="http://unresolvable.invalid/c.png" alt="" width="10" height="10"></picture>
<iframe id="framed" loading="lazy" src="http://unresolvable.invalid/d.html" width="10" height="10"></iframe>
<script>new MutationObserver((records) => { for (const r of records) document.getElementById('switches').textContent += ' switched ' + r.target.id; })
  .observe(document.body, { subtree: true, attributeFilter: ['loading'] });
addEventListener('beforeprint', () => { document.getElementById('switches').textContent += ' lazy-at-print ' + document.querySelectorAll('img[loading=lazy]').length; });</script>`);

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

  it('a page with native lazy images only is not resized, and its lazy image is printed', async () => {
    // A 600×300 teal PNG below the fold, on the fixture server: in the PDF as an image of that size.
    const html = page(
      `<div class="spacer"></div><img loading="lazy" src="${fixture.baseUrl}/fidelity/assets/teal.png" alt=""><p>after the image</p>`,
    );
    const res = await take({ html, format: 'pdf' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const text = (await pdfText(res.rawPayload)).text.replace(/\s+/g, ' ');
    expect(text).toContain('after the image');
    expect(text).not.toContain('resized');
    const file = join(dir, 'native.pdf');
    writeFileSync(file, res.rawPayload);
    expect(execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })).toMatch(/image\s+600\s+300\b/);
    expect(await pdfOf(NATIVE)).not.toContain('resized');
  });

  it('a print and a full page switch every rendered lazy element (display: none stays lazy); a print keeps one hidden lazy image, then removes it', async () => {
    const printed = await pdfOf(SWITCHES);
    expect(printed).toContain('switched shown');
    expect(printed).toContain('switched pictured');
    expect(printed).toContain('switched framed');
    expect(printed).not.toContain('switched hidden');
    // The hidden one and the print sentinel (preload-lazy-content.ts) are all that is lazy when printing.
    expect(printed).toContain('lazy-at-print 2');
    const withHtml = await take({ html: SWITCHES, format: 'pdf', extra_formats: 'html', response_type: 'json' });
    expect(withHtml.statusCode, withHtml.body.slice(0, 300)).toBe(200);
    const html = (withHtml.json() as { extra: { html: { text: string } } }).extra.html.text;
    expect(html).toContain('switched shown');
    expect(html).not.toContain('data-shutter-print-sentinel');
    const res = await take({ html: SWITCHES, format: 'markdown', full_page: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('switched shown');
    expect(res.body).toContain('switched pictured');
    expect(res.body).toContain('switched framed');
    expect(res.body).not.toContain('switched hidden');
    expect(res.body).not.toContain('lazy-at-print');
    expect(res.body).not.toContain('resized');
  });

  it('a full page of a page with a native lazy image below the fold has the image, without resizing the page', async () => {
    const html = page(
      `<div class="spacer"></div><img loading="lazy" src="${fixture.baseUrl}/fidelity/assets/teal.png" alt="" style="display:block">`,
    );
    const res = await take({ html, format: 'png', full_page: '1' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const { data, info } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
    // The image's middle: 300 px down into it, below the log paragraph, the 3 000 px spacer and the margins.
    const y = info.height - 150;
    const at = (y * info.width + 300) * info.channels;
    const teal = [...data.subarray(at, at + 3)];
    const expected = [
      ...(
        await sharp(join(import.meta.dirname, '../fixtures/fidelity/assets/teal.png'))
          .raw()
          .toBuffer()
      ).subarray(0, 3),
    ];
    expect(teal).toEqual(expected);
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
