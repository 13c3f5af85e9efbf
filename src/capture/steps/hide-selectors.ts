import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import { addStyleSheet } from './add-style-sheet.js';

/**
 * Hides elements with a style sheet rather than by removing them, so elements matching later
 * (rendered by scripts after load) are hidden too. One rule per selector: one bad selector
 * must not void the others.
 */
export async function hideSelectors(page: Page, selectors: readonly string[]): Promise<void> {
  if (selectors.length === 0) return;
  const invalid = await page.evaluate((list) => {
    return list.filter((s) => {
      try {
        document.createDocumentFragment().querySelector(s);
        return false;
      } catch {
        return true;
      }
    });
  }, selectors);
  if (invalid.length > 0) {
    throw new AppError('selector_invalid', `the page's browser cannot parse the selector ${JSON.stringify(invalid[0])}`, {
      details: invalid.map((value) => ({ parameter: 'hide_selectors', message: 'is not a valid CSS selector', value })),
    });
  }
  const css = selectors.map((s) => `${s} { display: none !important; }`).join('\n');
  await addStyleSheet(page, css);
}
