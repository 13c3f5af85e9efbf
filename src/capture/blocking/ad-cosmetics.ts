import { Request as FilterRequest, type FiltersEngine } from '@ghostery/adblocker';
import type { Frame, Page } from 'playwright-core';
import { addStyleSheet } from '../steps/add-style-sheet.js';
import { parse } from 'tldts-experimental';

interface DomFeatures {
  classes: string[];
  ids: string[];
  hrefs: string[];
  iframes: string[];
  images: string[];
}

/** Class names, ids and link targets of a frame's DOM: what generic hiding rules are matched against. */
function collectFeatures(): DomFeatures {
  const classes = new Set<string>();
  const ids = new Set<string>();
  const hrefs = new Set<string>();
  for (const el of Array.from(document.querySelectorAll('[class],[id],a[href]'))) {
    for (const c of Array.from(el.classList)) classes.add(c);
    if (el.id) ids.add(el.id);
    if (el instanceof HTMLAnchorElement && el.href) hrefs.add(el.href);
    if (classes.size > 20_000) break;
  }
  const iframes = Array.from(document.querySelectorAll('iframe[src]')).map((f) => (f as HTMLIFrameElement).src);
  const images = Array.from(document.images, (img) => img.currentSrc || img.src)
    .filter(Boolean)
    .slice(0, 2_000);
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs].slice(0, 5_000), iframes, images };
}

const cssString = (s: string) => `"${s.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;

async function hideInFrame(frame: Frame, engine: FiltersEngine): Promise<void> {
  const url = frame.url();
  if (!/^https?:/.test(url)) return;
  const features = await frame.evaluate(collectFeatures);
  const { hostname, domain } = parse(url);
  const { styles, active } = engine.getCosmeticsFilters({
    url,
    hostname: hostname ?? '',
    domain: domain ?? hostname ?? '',
    classes: features.classes,
    ids: features.ids,
    hrefs: features.hrefs,
    getBaseRules: true,
    getRulesFromDOM: true,
    getRulesFromHostname: true,
    // Scriptlets and procedural selectors need to run from document start; not done here.
    getInjectionRules: false,
    getExtendedRules: false,
  });
  // Frames and images of blocked ad servers would show as empty or broken boxes: hide them too.
  const blocked = (src: string, type: string) =>
    engine.match(FilterRequest.fromRawDetails({ url: src, sourceUrl: url, type: type as never })).match;
  const frameCss = [
    ...features.iframes.filter((src) => blocked(src, 'sub_frame')).map((src) => `iframe[src=${cssString(src)}]`),
    ...features.images.filter((src) => blocked(src, 'image')).map((src) => `img[src=${cssString(src)}]`),
  ]
    .map((selector) => `${selector} { display: none !important; }`)
    .join('\n');
  const css = [active === false ? '' : styles, frameCss].filter(Boolean).join('\n');
  if (css) await addStyleSheet(frame, css);
}

/**
 * Element hiding of the ad filter lists (generic and site-specific rules), computed from the
 * rendered DOM of every frame and applied right before the capture so it is in the image.
 */
export async function hideAds(page: Page, engine: FiltersEngine): Promise<void> {
  await Promise.all(page.frames().map((frame) => hideInFrame(frame, engine).catch(() => undefined)));
}
