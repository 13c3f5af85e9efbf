import type { Page } from 'playwright-core';

/** What metadata=1 answers about the page (DESIGN.md §4.2). */
export interface PageMetadata {
  title: string | null;
  description: string | null;
  open_graph: Record<string, string>;
  twitter: Record<string, string>;
  icons: string[];
  canonical_url: string | null;
  final_url: string;
  http_status: number | null;
  http_headers: Record<string, string>;
  fonts: string[];
  page_height: number;
}

/** The main document's answer, as the navigate step saw it. */
export interface MainDocument {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * Reads the page's own description of itself in one evaluation. `fonts` are the families of the
 * web fonts that loaded (document.fonts) and, for system fonts, the first family of the body's
 * font-family: what the page asked for and got, not a glyph-level audit.
 */
export async function pageMetadata(page: Page, main: MainDocument): Promise<PageMetadata> {
  const read = await page.evaluate(() => {
    const meta = (selector: string) => document.querySelector<HTMLMetaElement>(selector)?.content?.trim() || null;
    const prefixed = (prefix: string, attribute: 'property' | 'name') => {
      const found: Record<string, string> = {};
      for (const el of Array.from(document.querySelectorAll<HTMLMetaElement>(`meta[${attribute}^="${prefix}:"]`))) {
        const key = el.getAttribute(attribute)!.slice(prefix.length + 1);
        if (key && el.content && !(key in found)) found[key] = el.content.slice(0, 2000);
      }
      return found;
    };
    const icons = Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel~="icon"], link[rel="apple-touch-icon"]'))
      .map((l) => l.href)
      .filter(Boolean);
    const webFonts = Array.from(document.fonts as unknown as Iterable<FontFace>)
      .filter((f) => f.status === 'loaded')
      .map((f) => f.family.replace(/^["']|["']$/g, ''));
    const bodyFont = document.body
      ? getComputedStyle(document.body)
          .fontFamily.split(',')[0]!
          .trim()
          .replace(/^["']|["']$/g, '')
      : '';
    return {
      title: document.title.trim() || null,
      description: meta('meta[name="description"]'),
      open_graph: prefixed('og', 'property'),
      twitter: { ...prefixed('twitter', 'property'), ...prefixed('twitter', 'name') },
      icons,
      canonical_url: document.querySelector<HTMLLinkElement>('link[rel="canonical"]')?.href || null,
      final_url: location.href,
      fonts: [...new Set([...webFonts, ...(bodyFont ? [bodyFont] : [])])],
      page_height: Math.ceil(document.documentElement.scrollHeight),
    };
  });
  const headers = Object.fromEntries(Object.entries(main.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'set-cookie'));
  return { ...read, http_status: main.status ?? null, http_headers: headers };
}
