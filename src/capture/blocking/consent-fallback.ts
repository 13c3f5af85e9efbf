import type { Page } from 'playwright-core';

/**
 * For sites without a known consent platform: hides fixed or sticky overlays whose text speaks
 * of cookies or consent and that offer an accept/reject control, hides the full-screen
 * backdrop such banners put behind them, and undoes the scroll lock they set on html/body.
 * Returns how many banners it hid (0 leaves the page untouched).
 */
export async function hideConsentOverlays(page: Page): Promise<number> {
  return page.evaluate(() => {
    const topic = /cookie|consent|gdpr|ccpa|datenschutz|privacy|rgpd|privacidad|confidentialit/i;
    const action =
      /accept|agree|allow|reject|decline|deny|refuse|got it|ok\b|okay|understand|akzeptier|zustimm|ablehn|accepter|refuser|aceptar|rechazar|accetta|rifiuta|consent/i;
    const hide = (el: Element) => (el as HTMLElement).style.setProperty('display', 'none', 'important');
    const isOverlay = (style: CSSStyleDeclaration) => style.position === 'fixed' || style.position === 'sticky';
    const banners: Element[] = [];
    const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node as HTMLElement;
      const style = getComputedStyle(el);
      if (!isOverlay(style) || style.display === 'none' || style.visibility === 'hidden') continue;
      const text = el.innerText ?? '';
      if (text.length > 4000 || !topic.test(text)) continue;
      const controls = Array.from(el.querySelectorAll('button, a, [role="button"], input[type="button"], input[type="submit"]'));
      if (
        !controls.some((c) =>
          action.test((c as HTMLElement).innerText || (c as HTMLInputElement).value || c.getAttribute('aria-label') || ''),
        )
      )
        continue;
      banners.push(el);
    }
    // The outermost banner only: its children are hidden with it.
    const outermost = banners.filter((el) => !banners.some((other) => other !== el && other.contains(el)));
    if (outermost.length === 0) return 0;
    outermost.forEach(hide);
    // A backdrop: a fixed, text-less layer covering most of the viewport.
    const viewport = window.innerWidth * window.innerHeight;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const style = getComputedStyle(el);
      if (style.position !== 'fixed' || style.display === 'none' || (el as HTMLElement).innerText?.trim()) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width * rect.height >= viewport * 0.8) hide(el);
    }
    for (const el of [document.documentElement, document.body]) {
      if (!el) continue;
      const style = getComputedStyle(el);
      if (style.overflow === 'hidden' || style.overflowY === 'hidden') el.style.setProperty('overflow', 'visible', 'important');
      if (style.position === 'fixed') el.style.setProperty('position', 'static', 'important');
    }
    return outermost.length;
  });
}
