import type { CDPSession } from 'playwright-core';
import TurndownService from 'turndown';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
import { Timings } from '../../src/capture/timings.js';
import { htmlToMarkdown } from '../../src/encoders/markdown.js';
import { AppError } from '../../src/errors/app-error.js';
import { renderMarkdown } from '../../src/capture/render/markdown.js';
import type { TakeOptions } from '../../src/options/schema.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/**
 * Tables in format=markdown: every table with cells becomes a GFM table (never raw HTML, never an
 * exception), and a converter that fails anyway answers 422 conversion_failed, uncharged.
 */

/** htmlToMarkdown, checked never to keep a table as HTML. */
const md = (html: string) => {
  const out = htmlToMarkdown(html);
  expect(out).not.toMatch(/<\/?(table|tr|td|th)\b/i);
  return out;
};

describe('tables become GFM tables', () => {
  it('a table with a header row', () => {
    expect(
      md('<table><thead><tr><th>Region</th><th>Sales</th></tr></thead><tbody><tr><td>North</td><td>120</td></tr></tbody></table>'),
    ).toBe('| Region | Sales |\n| --- | --- |\n| North | 120 |\n');
  });

  it('an empty table is left out', () => {
    expect(md('<p>Before</p><table></table><p>After</p>')).toBe('Before\n\nAfter\n');
  });

  it('a table with only a caption becomes the caption', () => {
    expect(md('<table><caption>Prices <b>2024</b></caption></table>')).toBe('Prices **2024**\n');
  });

  it('a table whose rows were all hidden (and dropped by renderedHtml) is left out, without an error', () => {
    // What renderedHtml leaves of <table> with every <tr> display:none, hidden or aria-hidden.
    const dropped = '<table>\n  <thead>\n  </thead>\n  <tbody>\n    \n    \n  </tbody>\n</table>';
    expect(md(`<h2>Results</h2>${dropped}<p>End</p>`)).toBe('## Results\n\nEnd\n');
    // The caption stays when the rows go.
    expect(md('<table><caption>Results</caption><tbody></tbody></table>')).toBe('Results\n');
    // The header stays when only the body rows go.
    expect(md('<table><thead><tr><th>Name</th><th>Score</th></tr></thead><tbody></tbody></table>')).toBe(
      '| Name | Score |\n| --- | --- |\n',
    );
  });

  it('a table without a header row gets an empty one, so that its first row stays data', () => {
    expect(md('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>')).toBe(
      '|  |  |\n| --- | --- |\n| a | b |\n| c | d |\n',
    );
  });

  it('links, images and emphasis stay Markdown inside cells', () => {
    const html =
      '<table><tr><th>Site</th><th>Logo</th></tr>' +
      '<tr><td><a href="https://a.example/docs">The <b>docs</b></a></td><td><img src="https://a.example/logo.png" alt="Logo"></td></tr>' +
      '<tr><td><a href="https://b.example/">B</a> and <a href="https://c.example/">C</a></td><td></td></tr></table>';
    expect(md(html)).toBe(
      '| Site | Logo |\n| --- | --- |\n' +
        '| [The **docs**](https://a.example/docs) | ![Logo](https://a.example/logo.png) |\n' +
        '| [B](https://b.example/) and [C](https://c.example/) |  |\n',
    );
  });

  it('pipes are escaped everywhere in a cell: text, code, link targets and alt text', () => {
    const html =
      '<table><tr><th>a | b</th></tr>' +
      '<tr><td>x || y</td></tr>' +
      '<tr><td><code>cat f | wc</code></td></tr>' +
      '<tr><td><a href="https://a.example/?q=1|2">q</a> <img src="https://a.example/i.png" alt="A|B"></td></tr></table>';
    expect(md(html)).toBe(
      '| a \\| b |\n| --- |\n| x \\|\\| y |\n| `cat f \\| wc` |\n| [q](https://a.example/?q=1\\|2) ![A\\|B](https://a.example/i.png) |\n',
    );
  });

  it('line breaks, paragraphs and lists inside a cell become <br> on one row', () => {
    const html = '<table><tr><th>Notes</th></tr><tr><td>one<br>two<p>three</p><ul><li>x</li><li>y</li></ul></td></tr></table>';
    expect(md(html)).toBe('| Notes |\n| --- |\n| one<br>two<br>three<br>- x<br>- y |\n');
  });

  it('a nested table: the outer (layout) table is unwrapped, the inner one is a GFM table', () => {
    const html = '<table><tr><td>Menu</td><td><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>';
    expect(md(html)).toBe('Menu\n\n| k | v |\n| --- | --- |\n| 1 | 2 |\n');
  });

  it('a table of one cell is a layout box: its content is kept as blocks', () => {
    expect(md('<table><tr><td><h2>Title</h2><p>Body</p></td></tr></table>')).toBe('## Title\n\nBody\n');
  });

  it('colspan and rowspan keep every cell in its column, and every row as wide as the table', () => {
    const html =
      '<table><tr><th colspan="3">Wide</th></tr>' +
      '<tr><td rowspan="2">r</td><td colspan="2">12</td></tr>' +
      '<tr><td>a</td><td>b</td></tr>' +
      '<tr><td>short</td></tr></table>';
    expect(md(html)).toBe('| Wide |  |  |\n| --- | --- | --- |\n| r | 12 |  |\n|  | a | b |\n| short |  |  |\n');
  });

  it('a table whose spans would need millions of cells is laid out without them, not blown up', () => {
    const row = `<tr>${'<td colspan="1000">x</td>'.repeat(600)}</tr>`;
    const lines = md(`<table>${row}${row}</table>`).split('\n');
    expect(lines[1]).toBe(`| ${Array.from({ length: 600 }, () => '---').join(' | ')} |`);
    expect(lines[2]).toBe(`| ${Array.from({ length: 600 }, () => 'x').join(' | ')} |`);
    expect(lines).toHaveLength(5);
  });

  it('a header narrower than the body is padded (GFM needs as many header cells as separators)', () => {
    expect(md('<table><tr><th>A</th></tr><tr><td>1</td><td>2</td></tr></table>')).toBe('| A |  |\n| --- | --- |\n| 1 | 2 |\n');
  });

  it('head rows come first and foot rows last; only the first row is the header', () => {
    const html =
      '<table><tfoot><tr><td>sum</td></tr></tfoot><tbody><tr><td>1</td></tr></tbody>' +
      '<thead><tr><th>n</th></tr><tr><th>unit</th></tr></thead></table>';
    expect(md(html)).toBe('| n |\n| --- |\n| unit |\n| 1 |\n| sum |\n');
  });

  it('block content in cells is read inline: a table with headings, lists, quotes and code is still a table', () => {
    const html =
      '<table><tr><th><h3>Step</h3></th><th>Detail</th></tr>' +
      '<tr><td><ol><li>one</li></ol></td><td><blockquote>said</blockquote><pre><code>a | b\n`tick`</code></pre><hr></td></tr></table>';
    expect(md(html)).toBe('| Step | Detail |\n| --- | --- |\n| 1. one | said<br>`a \\| b`<br>`` `tick` `` |\n');
  });

  it('the rest of GFM still comes from the plugin: strikethrough and task lists', () => {
    expect(md('<p><del>old</del> new</p><ul><li><input type="checkbox" checked>done</li></ul>')).toBe('~~old~~ new\n\n- [x] done\n');
  });
});

describe('a converter failure is 422 conversion_failed, not a 500', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const failure = (run: () => unknown): AppError => {
    try {
      run();
    } catch (error) {
      return error as AppError;
    }
    throw new Error('expected the conversion to fail');
  };

  it('a converter that throws becomes an AppError with a message in plain words', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'parentNode')");
    vi.spyOn(TurndownService.prototype, 'turndown').mockImplementation(() => {
      throw bug;
    });
    const error = failure(() => md('<table><tr><td>x</td></tr></table>'));
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('conversion_failed');
    expect(error.code).not.toBe('internal_error');
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      'the page could not be converted to Markdown: the converter failed on its HTML; leave the failing part out with hide_selectors, or take another format',
    );
    expect(error.message).not.toContain('parentNode');
    expect(error.cause).toBe(bug);
  });

  it('a DOM nested too deeply for the converter (a real failure, no mock) says so', () => {
    let deep = 'x';
    for (let i = 0; i < 12_000; i++) deep = `<div>${deep}</div>`;
    const error = failure(() => md(deep));
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('conversion_failed');
    expect(error.message).toContain('its elements are nested too deeply');
  });

  it("the markdown format's render rejects with it", async () => {
    vi.spyOn(TurndownService.prototype, 'turndown').mockImplementation(() => {
      throw new Error('boom');
    });
    const cdp = { send: async () => ({ result: { value: '<html><body><p>x</p></body></html>' } }) } as unknown as CDPSession;
    const options = { format: 'markdown', full_page: false } as TakeOptions;
    // Without full_page, markdown uses only its CDP session, the options and the timings: the rest are stand-ins.
    const ctx = { cdp, options, timings: new Timings() } as unknown as Parameters<typeof renderMarkdown>[0];
    await expect(renderMarkdown(ctx)).rejects.toMatchObject({ code: 'conversion_failed', status: 422 });
  });

  describe('over HTTP', () => {
    let t: TestApp | undefined;
    afterEach(async () => {
      await t?.app.close();
      await t?.keys.close();
    });

    it('answers 422 conversion_failed and does not charge the capture', async () => {
      t = await buildTestApp();
      vi.spyOn(TurndownService.prototype, 'turndown').mockImplementation(() => {
        throw new Error('boom');
      });
      // The engine fails the way renderOutput does when the converter throws.
      t.engine.error = failure(() => md('<p>x</p>'));
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/take?url=https%3A%2F%2Fexample.com%2F&format=markdown',
        headers: { apikey: t.key },
      });
      expect(res.statusCode).toBe(422);
      const body = res.json() as { error: { code: string; message: string } };
      expect(body.error.code).toBe('conversion_failed');
      expect(body.error.message).toMatch(/^the page could not be converted to Markdown: /);
      expect(body.error.message).not.toContain('boom');
      expect(await t.accounts.limits.quota.used(t.account.id, periodOf(new Date()))).toBe(0);
    });
  });
});
