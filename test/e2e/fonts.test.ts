import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR, startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { pdfText } from '../helpers/pdf-text.js';
import { pixels, startService, type Pixels, type Service } from './harness.js';

/**
 * Issue 38, docs/fonts.md: every script in common use renders with a real font, through the font
 * fallback of the Chromium and fonts that scripts/install-system-deps.sh installs. A script without a
 * font is drawn as .notdef boxes ("tofu"), the same box for every letter: so two different letters
 * drawn alone must give two different images, both with ink.
 */

interface Script {
  name: string;
  letters: [string, string];
  sample: string;
}

const PAGE = 'fonts/scripts.html';
const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&');

// The fixture is the one list: it is also the page of docs/images/scripts-*.png.
const SCRIPTS: Script[] = [
  ...readFileSync(join(FIXTURES_DIR, PAGE), 'utf8').matchAll(
    /<tr data-script="([^"]+)" data-letters="(\S+) (\S+)"><th>[^<]*<\/th><td>([^<]+)<\/td>/g,
  ),
].map(([, name, a, b, sample]) => ({ name: decode(name!), letters: [a!, b!], sample: decode(sample!) }));

const FAMILIES = ['serif', 'sans-serif', 'monospace'] as const;
const BOX = 56;
const COLUMNS = Math.floor(1280 / BOX);

let fixtures: FixtureServer;
let service: Service;

beforeAll(async () => {
  [fixtures, service] = await Promise.all([startFixtureServer(), startService()]);
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixtures);
});

const take = (payload: Record<string, string | number | boolean>) =>
  service.app.inject({ method: 'POST', url: '/v1/take', payload, headers: { apikey: service.apiKey } });

/** Every letter of every script in every generic family, each alone in its own box of one page. */
function letterBoxes() {
  const boxes = SCRIPTS.flatMap((script) =>
    FAMILIES.flatMap((family) => script.letters.map((letter, i) => ({ script: script.name, family, letter, second: i === 1 }))),
  );
  const placed = boxes.map((box, i) => ({ ...box, x: (i % COLUMNS) * BOX, y: Math.floor(i / COLUMNS) * BOX }));
  const divs = placed.map(
    (b) => `<div style="left:${b.x}px;top:${b.y}px;font-family:${b.family}">${b.letter.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</div>`,
  );
  const style = `body{margin:0;background:#fff;color:#000}div{position:absolute;width:${BOX}px;height:${BOX}px;font-size:32px;line-height:${BOX}px;text-align:center;overflow:hidden}`;
  const height = Math.ceil(boxes.length / COLUMNS) * BOX;
  return { boxes: placed, height, html: `<!doctype html><meta charset="utf-8"><style>${style}</style>${divs.join('')}` };
}

/** Pixels of the box that are clearly not white (colour emoji count too). */
function ink(px: Pixels, x0: number, y0: number): number {
  let n = 0;
  for (let y = y0; y < y0 + BOX; y++) {
    for (let x = x0; x < x0 + BOX; x++) if (Math.min(...px.at(x, y)) < 160) n++;
  }
  return n;
}

/** Pixels that differ clearly between two boxes: 0 for two identical .notdef boxes. */
function difference(px: Pixels, a: { x: number; y: number }, b: { x: number; y: number }): number {
  let n = 0;
  for (let dy = 0; dy < BOX; dy++) {
    for (let dx = 0; dx < BOX; dx++) {
      const [p, q] = [px.at(a.x + dx, a.y + dy), px.at(b.x + dx, b.y + dy)];
      if (Math.max(Math.abs(p[0] - q[0]), Math.abs(p[1] - q[1]), Math.abs(p[2] - q[2])) > 64) n++;
    }
  }
  return n;
}

// Letters, not the string: a PDF holds right-to-left text in visual order, so a reader (pdftotext too)
// has to reorder it, and only the letters are the same either way.
const letters = (s: string) => [...new Set(s)].filter((c) => /\p{L}/u.test(c));

describe('every script renders (issue 38)', () => {
  it('lists the 28 scripts of the issue and more', () => {
    expect(SCRIPTS.length).toBeGreaterThanOrEqual(28);
    for (const name of ['Devanagari', 'Tamil', 'Thai', 'Khmer', 'Myanmar', 'Tibetan', 'Ethiopic', 'Emoji', 'Korean (Hangul)']) {
      expect(SCRIPTS.map((s) => s.name)).toContain(name);
    }
  });

  it('two letters of each script, drawn alone in serif, sans-serif and monospace, differ and have ink (no tofu)', async () => {
    const { boxes, height, html } = letterBoxes();
    const res = await take({ html, viewport_width: 1280, viewport_height: height });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const px = await pixels(res.rawPayload);
    const tofu: string[] = [];
    for (let i = 0; i < boxes.length; i += 2) {
      const [a, b] = [boxes[i]!, boxes[i + 1]!];
      const [inkA, inkB, diff] = [ink(px, a.x, a.y), ink(px, b.x, b.y), difference(px, a, b)];
      if (inkA < 10 || inkB < 10 || diff < 10) tofu.push(`${a.script} (${a.family}: ink ${inkA}/${inkB}, differing pixels ${diff})`);
    }
    expect(tofu).toEqual([]);
  });

  it('the multi-script page as png: every row laid out at full height', async () => {
    const res = await take({ url: `${fixtures.baseUrl}/${PAGE}`, full_page: true });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const meta = await sharp(res.rawPayload).metadata();
    expect(meta.width).toBe(1280);
    expect(meta.height).toBeGreaterThan(SCRIPTS.length * 20);
  });

  it('the multi-script page as pdf: every sample is extractable text, and no glyph is .notdef', async () => {
    const res = await take({ url: `${fixtures.baseUrl}/${PAGE}`, format: 'pdf', pdf_fit_one_page: true });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const { text, notdef, fonts } = await pdfText(res.rawPayload);
    const missing = SCRIPTS.filter((s) => letters(s.sample).some((c) => !text.includes(c))).map((s) => s.name);
    expect(missing).toEqual([]);
    expect(notdef).toBe(0);
    // Chromium falls back as if every family were sans-serif; the fontconfig file of the install script
    // makes that Noto Sans where a script has both faces (Tibetan has only a serif one).
    expect(fonts.filter((f) => /^NotoSerif(?!Tibetan)/.test(f))).toEqual([]);
  });

  it('the multi-script page as markdown: every sample is in the text', async () => {
    const res = await take({ url: `${fixtures.baseUrl}/${PAGE}`, format: 'markdown' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const missing = SCRIPTS.filter((s) => !res.body.includes(s.sample)).map((s) => s.name);
    expect(missing).toEqual([]);
  });
});
