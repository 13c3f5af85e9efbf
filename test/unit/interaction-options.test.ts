import { describe, expect, it } from 'vitest';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';

describe('interaction options', () => {
  it('accepts selectors, a script and its wait; defaults error_on_click_selector_not_found to true', () => {
    const o = parse({
      click: 'button.accept',
      hover: 'nav > a',
      wait_for_selector: '#app[data-ready]',
      scripts: 'return 1',
      scripts_wait_until: 'networkidle',
    });
    expect(o).toMatchObject({
      click: 'button.accept',
      hover: 'nav > a',
      wait_for_selector: '#app[data-ready]',
      scripts: 'return 1',
      scripts_wait_until: 'networkidle0',
      error_on_click_selector_not_found: true,
    });
    expect(parse({ error_on_click_selector_not_found: '0' }).error_on_click_selector_not_found).toBe(false);
  });

  it.each([
    ['click', 'button..x'],
    ['hover', ''],
    ['wait_for_selector', 'div >'],
    ['click', 'x'.repeat(501)],
    ['scripts', 'x'.repeat(100 * 1024 + 1)],
    ['scripts', 42],
    ['error_on_click_selector_not_found', 'maybe'],
  ])('%s=%j is a 400 naming it', (name, value) => {
    const found = problems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ parameter: name, code: 'invalid_parameter' });
  });

  it('scripts_wait_until without scripts is a 400; a bad value names the choices', () => {
    expect(problems({ scripts_wait_until: 'load' })[0]).toMatchObject({
      parameter: 'scripts_wait_until',
      message: 'applies only with scripts',
    });
    expect(problems({ scripts: '1', scripts_wait_until: 'later' })[0]!.message).toContain(
      'load, domcontentloaded, networkidle0, networkidle2',
    );
  });
});
