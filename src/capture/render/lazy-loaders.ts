import type { CDPSession } from 'playwright-core';

/**
 * Counts IntersectionObserver.observe calls in the page's main world. The method is wrapped in a
 * Proxy, which keeps its name, length and native-looking source; the count lives on the Proxy's
 * handler, which only the debugger protocol can reach ([[Handler]]), so the page sees no new global.
 * The browser pool installs it in every context it opens (chromium-engine.ts).
 */
export const LAZY_LOADER_PROBE = `(() => {
  const proto = self.IntersectionObserver && IntersectionObserver.prototype;
  const observe = proto && Object.getOwnPropertyDescriptor(proto, 'observe');
  if (!observe || typeof observe.value !== 'function') return;
  const handler = { count: 0, apply(target, self, args) { handler.count++; return Reflect.apply(target, self, args); } };
  Object.defineProperty(proto, 'observe', { ...observe, value: new Proxy(observe.value, handler) });
})()`;

/**
 * Markup of lazy loaders that swap a placeholder when the element comes into view (lazysizes,
 * lozad, vanilla-lazyload, WordPress and most CMS themes). Native lazy loading is no such sign: it
 * needs no grown viewport (preload-lazy-content.ts).
 */
export const LAZY_MARKUP =
  '[data-src],[data-srcset],[data-lazy],[data-lazy-src],[data-lazy-srcset],[data-original],[data-bg],[data-background],.lazyload,.lazy';

/** The probe's count of observed intersections (0 when it was not installed), in three round trips. */
export async function observedIntersections(cdp: CDPSession): Promise<number> {
  try {
    const { result } = await cdp.send('Runtime.evaluate', {
      expression: 'self.IntersectionObserver && IntersectionObserver.prototype.observe',
    });
    if (!result.objectId) return 0;
    const { internalProperties } = await cdp.send('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
    const handler = internalProperties?.find((p) => p.name === '[[Handler]]')?.value?.objectId;
    if (!handler) return 0;
    const { result: count } = await cdp.send('Runtime.callFunctionOn', {
      objectId: handler,
      functionDeclaration: 'function () { return typeof this.count === "number" ? this.count : 0; }',
      returnByValue: true,
    });
    return Number(count.value) || 0;
  } catch {
    // A page that replaced IntersectionObserver itself: assume it observes.
    return 1;
  }
}
