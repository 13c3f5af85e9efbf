import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

// PDFs are read back with poppler's pdftotext and qpdf (scripts/install-system-deps.sh installs both).
let fixture: FixtureServer;
let service: Service;
let dir: string;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService();
  dir = mkdtempSync(join(tmpdir(), 'shutter-pdf-'));
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const take = (query: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });

let n = 0;
/** The PDF of a fixture, written to a file for the tools. */
const pdfOf = async (path: string, query: Record<string, string> = {}) => {
  const res = await take({ url: `${fixture.baseUrl}${path}`, format: 'pdf', ...query });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const file = join(dir, `${++n}.pdf`);
  writeFileSync(file, res.rawPayload);
  return { file, res };
};

/** The text of each page (pdftotext separates pages with form feeds). */
const pagesText = (file: string) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).split('\f').slice(0, -1);
const qpdfJson = (file: string) => JSON.parse(execFileSync('qpdf', ['--json', file], { encoding: 'utf8', maxBuffer: 64 << 20 }));
/** Every object of the file, uncompressed, as text. */
const qdf = (file: string) =>
  execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, '-'], { maxBuffer: 64 << 20 }).toString('latin1');

const FOOTER =
  '<div style="font-size:10px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';

describe('pdf_header and pdf_footer', () => {
  it('print "Page N of M" and the header on every page, without covering the body', async () => {
    const { file } = await pdfOf('/document.html', { pdf_header: 'Acme Corp report: <span class="title"></span>', pdf_footer: FOOTER });
    const pages = pagesText(file);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((text, i) => {
      expect(text).toContain(`Page ${i + 1} of ${pages.length}`);
      expect(text.match(/Acme Corp report: Quarterly report/g)?.length, `page ${i + 1}`).toBe(1);
    });
    // The first body line is all there: the header did not cover it.
    expect(pages[0]).toMatch(/Quarterly report\s*\n[\s\S]*This document has several pages and a relative link\./);
    // The header sits above the body on the first page, the footer below it on the last.
    expect(pages[0]!.indexOf('Acme Corp')).toBeLessThan(pages[0]!.indexOf('This document has'));
    const last = pages.at(-1)!;
    expect(last.indexOf('Filler for page length')).toBeLessThan(last.indexOf(`Page ${pages.length} of`));
  });

  it('a header alone leaves the footer empty (no date or title from Chromium)', async () => {
    const { file } = await pdfOf('/document.html', { pdf_header: 'HEAD' });
    const pages = pagesText(file);
    for (const text of pages) expect(text.match(/Quarterly report/g)?.length ?? 0).toBeLessThanOrEqual(2);
    expect(pages[0]).not.toMatch(/\d+\/\d+\/\d+/);
  });

  it('a template over 50 000 characters is a 400 naming it; with format=png, 400 parameter_not_applicable', async () => {
    const big = await take({ url: `${fixture.baseUrl}/document.html`, format: 'pdf', pdf_footer: 'x'.repeat(50_001) });
    expect(big.statusCode).toBe(400);
    expect(big.json().error.details[0].parameter).toBe('pdf_footer');
    const png = await take({ url: `${fixture.baseUrl}/document.html`, pdf_header: 'x' });
    expect(png.statusCode).toBe(400);
    expect(png.json().error.code).toBe('parameter_not_applicable');
    expect(png.json().error.details[0].parameter).toBe('pdf_header');
  });
});

describe('pdf_outline and pdf_tagged', () => {
  it('pdf_outline=1 makes bookmarks named after the headings', async () => {
    const { file } = await pdfOf('/document.html', { pdf_outline: '1' });
    const titles = (qpdfJson(file).outlines as Array<{ title: string; kids: unknown[] }>).flatMap(function walk(o): string[] {
      return [o.title, ...(o.kids as Array<{ title: string; kids: unknown[] }>).flatMap(walk)];
    });
    expect(titles).toEqual(expect.arrayContaining(['Quarterly report', 'Highlights', 'Section one', 'Section two', 'Section three']));
    const plain = await pdfOf('/document.html');
    expect(qpdfJson(plain.file).outlines).toEqual([]);
  });

  it('tagged by default (a structure tree with the image’s alt text), untagged with pdf_tagged=0', async () => {
    const tagged = qdf((await pdfOf('/document.html')).file);
    expect(tagged).toContain('/StructTreeRoot');
    expect(tagged).toContain('/Alt (Green chart)');
    const untagged = qdf((await pdfOf('/document.html', { pdf_tagged: '0' })).file);
    expect(untagged).not.toContain('/StructTreeRoot');
  });
});

describe('a print that hangs', () => {
  it('a beforeprint handler that never returns: 200 with print_fallback within the cap, its text in the PDF', async () => {
    const started = performance.now();
    const { file, res } = await pdfOf('/pdf/spinning-beforeprint.html');
    expect(performance.now() - started).toBeLessThan(12_000);
    expect(res.headers['x-shutter-warning']).toContain('print_fallback');
    expect(pagesText(file).join('')).toContain('Printed despite its script');
  }, 30_000);
});
