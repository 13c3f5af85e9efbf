import type { Page } from 'playwright-core';

/** Adds the caller's CSS after the page's own, so it wins ties. */
export async function injectStyles(page: Page, css: string | undefined): Promise<void> {
  if (css) await page.addStyleTag({ content: css });
}
