import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/options/did-you-mean.js';
import { PARAMETER_NAMES } from '../../src/options/schema.js';

describe('didYouMean', () => {
  it.each([
    ['widht', 'viewport_width'],
    ['hieght', 'viewport_height'],
    ['qualty', 'quality'],
    ['timout', 'timeout'],
    ['formt', 'format'],
    ['delya', 'delay'],
    ['urk', 'url'],
    ['pdf_margins', 'pdf_margin'],
    ['hide_selector', 'hide_selectors'],
  ])('typo %s → %s', (typo, expected) => {
    expect(didYouMean(typo, PARAMETER_NAMES)).toBe(expected);
  });

  it.each([
    ['fullpage', 'full_page'],
    ['Full-Page', 'full_page'],
    ['VIEWPORT_WIDTH', 'viewport_width'],
    ['viewportwidth', 'viewport_width'],
    ['pdf-landscape', 'pdf_landscape'],
  ])('%s differs only in case and separators → %s', (name, expected) => {
    expect(didYouMean(name, PARAMETER_NAMES)).toBe(expected);
  });

  it.each([
    ['width', 'viewport_width'],
    ['height', 'viewport_height'],
    ['type', 'format'],
    ['output', 'format'],
    ['css', 'styles'],
    ['dpr', 'device_scale_factor'],
    ['scale', 'device_scale_factor'],
    ['country', 'ip_country_code'],
    ['filename', 'attachment_name'],
    ['adblock', 'block_ads'],
    ['waitUntil', 'wait_until'],
    ['hide', 'hide_selectors'],
  ])('name used by other APIs %s → %s', (name, expected) => {
    expect(didYouMean(name, PARAMETER_NAMES)).toBe(expected);
  });

  it.each(['foo', 'x', 'frobnicate', 'zzzzzzzz', 'uxx', 'callback'])('nothing close to %s → undefined', (name) => {
    expect(didYouMean(name, PARAMETER_NAMES)).toBeUndefined();
  });

  it('an alias whose target is not among the known names is not suggested', () => {
    expect(didYouMean('width', ['format', 'url'])).toBeUndefined();
  });

  it('no known names → undefined', () => {
    expect(didYouMean('url', [])).toBeUndefined();
  });

  it('short names allow one edit, longer names more', () => {
    expect(didYouMean('abcd', ['abce'])).toBe('abce');
    expect(didYouMean('abcd', ['abef'])).toBeUndefined();
    expect(didYouMean('abcdefgh', ['abcdefxy'])).toBe('abcdefxy');
    expect(didYouMean('abcdefgh', ['abcdexyz'])).toBeUndefined();
    expect(didYouMean('abcdefghijk', ['abcdefghxyz'])).toBe('abcdefghxyz');
  });

  it('prefers the closest of several candidates', () => {
    expect(didYouMean('delai', ['delay', 'deal', 'relax'])).toBe('delay');
  });
});
