import type { Page } from 'playwright-core';
import { addStyleSheet } from './add-style-sheet.js';

/** Adds the caller's CSS after the page's own, so it wins ties. */
export async function injectStyles(page: Page, css: string | undefined): Promise<void> {
  if (css) await addStyleSheet(page, css);
}

/** reduced_motion: animations and transitions held still, so what is captured does not depend on timing. */
const STILL =
  '*, *::before, *::after { animation-play-state: paused !important; transition: none !important; scroll-behavior: auto !important; }';

export async function pauseMotion(page: Page, reduced: boolean): Promise<void> {
  if (reduced) await addStyleSheet(page, STILL);
}
