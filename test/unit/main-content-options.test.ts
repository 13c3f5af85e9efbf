import { describe, expect, it } from 'vitest';
import { cacheIdentity } from '../../src/cache/cache-identity.js';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';

describe('main_content', () => {
  it('is a boolean, false by default, for markdown and html', () => {
    expect(parse({ format: 'markdown' }).main_content).toBe(false);
    expect(parse({ format: 'md', main_content: '1' }).main_content).toBe(true);
    expect(parse({ format: 'html', main_content: 'true', selector: 'main' }).main_content).toBe(true);
  });

  it('with an image format or pdf is 400 parameter_not_applicable naming it', () => {
    for (const format of ['png', 'jpg', 'pdf']) {
      expect(problems({ format, main_content: '1' })[0]).toMatchObject({ parameter: 'main_content' });
    }
    expect(problems({ format: 'markdown', main_content: 'maybe' })[0]).toMatchObject({ parameter: 'main_content' });
  });

  it('is part of the cache identity', () => {
    const url = 'https://example.com/';
    const whole = cacheIdentity('acct', parse({ url, format: 'markdown' }));
    const main = cacheIdentity('acct', parse({ url, format: 'markdown', main_content: '1' }));
    expect(main).not.toBe(whole);
    expect(cacheIdentity('acct', parse({ url, format: 'markdown', main_content: '0' }))).toBe(whole);
  });
});
