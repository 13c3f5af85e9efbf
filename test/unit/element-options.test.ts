import { describe, expect, it } from 'vitest';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';

const CLIP = { clip_x: 0, clip_y: '10', clip_width: 300, clip_height: '200' };

describe('element and region options', () => {
  it('accepts a selector (also for markdown and html), clip_* together, resizing and scroll_into_view', () => {
    expect(parse({ selector: '#main > article', format: 'markdown' })).toMatchObject({
      selector: '#main > article',
      error_on_selector_not_found: true,
    });
    expect(parse({ selector: '.x', format: 'html', error_on_selector_not_found: '0' }).error_on_selector_not_found).toBe(false);
    expect(parse(CLIP)).toMatchObject({ clip_x: 0, clip_y: 10, clip_width: 300, clip_height: 200 });
    expect(parse({ image_width: '400', image_height: 300, format: 'avif' })).toMatchObject({ image_width: 400, image_height: 300 });
    expect(parse({ scroll_into_view: '#footer', scroll_into_view_adjust_top: '-80' })).toMatchObject({ scroll_into_view_adjust_top: -80 });
    expect(parse({ omit_background: 1, format: 'webp' }).omit_background).toBe(true);
  });

  it('selector cannot be combined with full_page or clip_*; the 400 names both', () => {
    expect(problems({ selector: '#a', full_page: 1 })[0]).toMatchObject({ parameter: 'selector', conflicts_with: 'full_page' });
    const withClip = problems({ selector: '#a', ...CLIP });
    expect(withClip.map((p) => p.conflicts_with).sort()).toEqual(['clip_height', 'clip_width', 'clip_x', 'clip_y']);
    expect(withClip[0]!.message).toContain('cannot be combined with clip_');
  });

  it('clip_* come all four together; the missing ones are named', () => {
    const found = problems({ clip_x: 1, clip_width: 10 });
    expect(found.map((p) => p.parameter).sort()).toEqual(['clip_height', 'clip_y']);
    expect(found[0]!.message).toContain('give all four clip_*');
  });

  it.each([
    [{ selector: '#a', format: 'pdf' }, 'selector'],
    [{ ...CLIP, format: 'markdown' }, 'clip_x'],
    [{ omit_background: 1, format: 'jpg' }, 'omit_background'],
    [{ image_width: 10, format: 'pdf' }, 'image_width'],
  ])('%j: 400 parameter_not_applicable', (raw, parameter) => {
    expect(problems(raw).find((p) => p.parameter === parameter)).toMatchObject({ code: 'parameter_not_applicable' });
  });

  it.each([
    ['selector', 'div >'],
    ['selector', 'x'.repeat(501)],
    ['clip_width', 0],
    ['clip_x', -1],
    ['image_width', 7681],
    ['image_height', '0'],
    ['scroll_into_view', '..bad'],
  ])('%s=%j is a 400 naming it', (name, value) => {
    const extra = name.startsWith('clip_') ? { ...CLIP } : {};
    const found = problems({ ...extra, [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ parameter: name, code: 'invalid_parameter' });
  });

  it('scroll_into_view_adjust_top alone is a 400', () => {
    expect(problems({ scroll_into_view_adjust_top: 10 })[0]).toMatchObject({ parameter: 'scroll_into_view_adjust_top' });
  });
});
