import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService();
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const take = (query: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });

const pdfOf = async (query: Record<string, string>) => {
  const res = await take({ url: `${fixture.baseUrl}/document.html`, format: 'pdf', ...query });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  const doc = await PDFDocument.load(res.rawPayload);
  const sizes = doc.getPages().map((p) => p.getSize());
  return { pages: doc.getPageCount(), width: Math.round(sizes[0]!.width), height: Math.round(sizes[0]!.height), sizes };
};

/** Page size within 2 pt: Chromium rounds paper sizes through CSS pixels. */
const expectSize = (pdf: { width: number; height: number }, [w, h]: number[]) => {
  expect(Math.abs(pdf.width - w!), `width ${pdf.width} vs ${w}`).toBeLessThanOrEqual(2);
  expect(Math.abs(pdf.height - h!), `height ${pdf.height} vs ${h}`).toBeLessThanOrEqual(2);
};

// Paper sizes in PostScript points (1/72 in).
const A4 = [595, 842];
const LETTER = [612, 792];

describe('format=pdf', () => {
  it('defaults to A4 portrait with several pages', async () => {
    const pdf = await pdfOf({});
    expectSize(pdf, A4);
    expect(pdf.pages).toBeGreaterThanOrEqual(3);
  });

  it('pdf_paper_format (case-insensitive) and pdf_landscape set the page size', async () => {
    const letter = await pdfOf({ pdf_paper_format: 'Letter' });
    expectSize(letter, LETTER);
    const landscape = await pdfOf({ pdf_paper_format: 'a4', pdf_landscape: '1' });
    expectSize(landscape, [A4[1]!, A4[0]!]);
    const a6 = await pdfOf({ pdf_paper_format: 'A6' });
    expectSize(a6, [298, 420]);
  });

  it('pdf_page_ranges keeps only those pages', async () => {
    const all = await pdfOf({});
    const some = await pdfOf({ pdf_page_ranges: '1-2' });
    expect(some.pages).toBe(2);
    expect(all.pages).toBeGreaterThan(2);
    const single = await pdfOf({ pdf_page_ranges: '2' });
    expect(single.pages).toBe(1);
  });

  it('a page range beyond the last page is a clear 400', async () => {
    const res = await take({ url: `${fixture.baseUrl}/document.html`, format: 'pdf', pdf_page_ranges: '40-50' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].parameter).toBe('pdf_page_ranges');
  });

  it('pdf_fit_one_page puts everything on one page as wide as the viewport', async () => {
    const pdf = await pdfOf({ pdf_fit_one_page: '1' });
    expect(pdf.pages).toBe(1);
    expect(pdf.width).toBe(960); // 1280 CSS px = 960 pt
    expect(pdf.height).toBeGreaterThan(A4[1]!);
  });

  it('pdf_media_type=screen lays out with screen styles (a block hidden in print appears)', async () => {
    const print = await pdfOf({});
    const screen = await pdfOf({ pdf_media_type: 'screen' });
    expect(screen.pages).toBeGreaterThan(print.pages);
  });

  it('pdf_scale and pdf_margin change the layout', async () => {
    const normal = await pdfOf({});
    const small = await pdfOf({ pdf_scale: '0.5' });
    expect(small.pages).toBeLessThan(normal.pages);
    const margins = await pdfOf({ pdf_margin: '3in 1in' });
    expect(margins.pages).toBeGreaterThan(normal.pages);
  });

  it('renders html input too', async () => {
    const res = await service.app.inject({
      method: 'POST',
      url: '/v1/take',
      headers: { apikey: service.apiKey },
      payload: { html: '<h1>Invoice</h1><p>Total: 42</p>', format: 'pdf', pdf_paper_format: 'letter' },
    });
    expect(res.statusCode).toBe(200);
    const doc = await PDFDocument.load(res.rawPayload);
    expect(doc.getPageCount()).toBe(1);
    expect(Math.round(doc.getPage(0).getWidth())).toBe(LETTER[0]);
  });

  it('a pdf option with an image format, and quality with pdf, are 400 parameter_not_applicable', async () => {
    const a = await take({ url: `${fixture.baseUrl}/document.html`, pdf_landscape: '1' });
    expect(a.statusCode).toBe(400);
    expect(a.json().error.code).toBe('parameter_not_applicable');
    const b = await take({ url: `${fixture.baseUrl}/document.html`, format: 'pdf', quality: '50' });
    expect(b.json().error.code).toBe('parameter_not_applicable');
  });

  it('a timeout over 12 s with pdf is refused with the reason', async () => {
    const res = await take({ url: `${fixture.baseUrl}/document.html`, format: 'pdf', timeout: '30' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/12 seconds/);
  });
});

describe('format=markdown', () => {
  it('converts the rendered page: headings, lists, links, table, code, image; hidden content and scripts left out', async () => {
    const res = await take({ url: `${fixture.baseUrl}/document.html`, format: 'markdown' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['content-disposition']).toContain('screenshot.md');
    const md = res.body;
    expect(md).toMatch(/^# Quarterly report$/m);
    expect(md).toMatch(/^## Highlights$/m);
    expect(md).toMatch(/^- Revenue grew$/m);
    expect(md).toContain(`[relative link](${fixture.baseUrl}/about.html)`);
    expect(md).toContain('**several pages**');
    expect(md).toMatch(/\| Region \| Sales \|\n\| --- \| --- \|\n\| North \| 120 \|/);
    expect(md).toContain('```\ntotal = north + south\n```');
    expect(md).toContain(`![Green chart](${fixture.baseUrl}/green.svg)`);
    expect(md).toContain('Added by script');
    expect(md).not.toContain('Hidden by CSS');
    expect(md).not.toContain('Hidden from assistive tech');
    expect(md).not.toContain('insertAdjacentHTML');
  });

  it('leaves out links with no text and no picture (icons, logos drawn by CSS), and what held only them', async () => {
    const html = `<header><h1><a href="/" class="logo" style="display:block;width:90px;height:30px;background:#c00"></a></h1></header>
      <ul class="share"><li><a href="https://facebook.test/share"><svg width="16" height="16"><circle cx="8" cy="8" r="8"/></svg></a></li>
        <li><a href="https://twitter.test/share"><i class="icon-twitter"></i></a></li></ul>
      <p>Read <a href="https://news.test/story">the story</a> and <a href="https://news.test/more"><span>more <b>here</b></span></a>, see<a href="/empty"> </a> this.</p>
      <a href="/box"><div style="height:40px"></div></a>
      <p><a href="https://news.test/photo"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A photo"></a></p>
      <p>The end.</p>`;
    const res = await take({ html, format: 'markdown' });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toMatch(/\[\s*\]\(/);
    // No heading or list item left with nothing in it.
    expect(res.body).not.toMatch(/^\s*(#+|-)\s*$/m);
    expect(res.body).toContain('Read [the story](https://news.test/story) and [more **here**](https://news.test/more), see this.');
    expect(res.body).toMatch(/\[!\[A photo\]\(data:image\/gif;base64,[^)]+\)\]\(https:\/\/news\.test\/photo\)/);
    expect(res.body).toMatch(/this\.\n\n\[!\[A photo/);
    expect(res.body.trimEnd().endsWith('The end.')).toBe(true);
  });

  it('respects hide_selectors, and the md alias works', async () => {
    const res = await take({ url: `${fixture.baseUrl}/document.html`, format: 'md', 'hide_selectors[]': 'table' });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('| Region |');
    expect(res.body).toContain('# Quarterly report');
  });
});
