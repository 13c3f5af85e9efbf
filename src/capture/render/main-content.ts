import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { extractMainContent, type MainContentFound } from './main-content-page.js';
import { trimArticle } from './main-content-trim.js';

export type { MainContentFound } from './main-content-page.js';

/** @mozilla/readability's script as the package ships it, read once and run inside the page. */
let readabilitySource: string | undefined;
const readability = () =>
  (readabilitySource ??= readFileSync(createRequire(import.meta.url).resolve('@mozilla/readability/Readability.js'), 'utf8'));

/**
 * The page's main content (main_content=1), decided in the page on its rendered DOM: Readability
 * runs there on a copy from which what the browser knows is not content (hidden, off-screen,
 * overlays, dialogs, repeated blocks) was left out. With `selector`, inside that element only.
 */
export async function mainContent(page: Page, selector?: string): Promise<MainContentFound> {
  // One expression, not a function and arguments: the page's CSP may forbid eval and new Function,
  // but not what the debugger evaluates. `__name` is defined for code compiled with keepNames (tsx).
  const expression =
    `(() => { const __name = (f) => f; ` +
    `const Readability = (() => { ${readability()}\n; return Readability; })(); ` +
    `return (${extractMainContent.toString()})(Readability, ${JSON.stringify(selector ?? null)}, ${trimArticle.toString()}); })()`;
  return page.evaluate(expression) as Promise<MainContentFound>;
}

/** The main content as a small HTML document of its own, titled like the page. */
export function mainContentDocument(found: MainContentFound): string {
  const title = found.title.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><article>${found.html}</article></body></html>`;
}
