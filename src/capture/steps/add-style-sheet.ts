import type { Frame, Page } from 'playwright-core';

/**
 * Adds a style sheet to the document as a constructed (adopted) sheet rather than a <style>
 * element: the page's Content-Security-Policy (style-src 'self') governs style elements, not
 * sheets built by script, and DevTools' evaluation is not the page's script either. It comes after
 * the page's own sheets, so it wins ties.
 */
export async function addStyleSheet(target: Page | Frame, css: string): Promise<void> {
  await target.evaluate((text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, css);
}
