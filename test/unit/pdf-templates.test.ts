import { describe, expect, it } from 'vitest';
import { EMPTY_TEMPLATE, marginFor, wrapTemplate } from '../../src/capture/render/pdf-templates.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const URL_ = 'https://example.com/';

describe('pdf_header and pdf_footer templates', () => {
  it('a template is wrapped in readable default text, padded to the side margins, its own markup kept as given', () => {
    const html = '<div style="font-size:14px">Page <span class="pageNumber"></span></div><p>unclosed';
    const wrapped = wrapTemplate(html, { left: '20mm', right: '1in' });
    expect(wrapped).toContain('font-size:10px');
    expect(wrapped).toContain('width:100%');
    expect(wrapped).toContain('padding:0 1in 0 20mm');
    // The caller's markup is inside the wrapper, after its style, so its own styles win; bad HTML is printed as it is.
    expect(wrapped.endsWith(`>${html}</div>`)).toBe(true);
  });

  it('without pdf_margin the sides are padded 10mm; a missing or blank template is empty, not Chromium’s date and title', () => {
    expect(wrapTemplate('x', undefined)).toContain('padding:0 10mm 0 10mm');
    expect(wrapTemplate(undefined, undefined)).toBe(EMPTY_TEMPLATE);
    expect(wrapTemplate('  ', undefined)).toBe(EMPTY_TEMPLATE);
  });

  it('the margin grows by the template’s height plus room around it, only where there is a template', () => {
    const margin = marginFor({ header: 12, footer: 0 });
    expect(Number.parseInt(margin.top)).toBeGreaterThan(12 + 20);
    expect(margin).toMatchObject({ right: '0px', bottom: '0px', left: '0px' });
  });

  it('a template up to 50 000 characters is accepted; longer is a 400 naming it', () => {
    const ok = parseTakeOptions({ url: URL_, format: 'pdf', pdf_header: 'x'.repeat(50_000) }, { countries: [] });
    expect(ok.pdf_header).toHaveLength(50_000);
    expect(() => parseTakeOptions({ url: URL_, format: 'pdf', pdf_footer: 'x'.repeat(50_001) }, { countries: [] })).toThrow(
      /^pdf_footer: must be at most 50,000 characters/,
    );
  });
});
