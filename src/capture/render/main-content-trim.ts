/**
 * Runs in the page, serialized like extractMainContent (nothing from outside its own body): what
 * Readability keeps around the story that readers skip and reader views leave out. It edits
 * Readability's answer in place, in the inert document, where nothing loads or runs.
 */
export function trimArticle(holder: HTMLElement, title: string): void {
  const squash = (el: Node) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  const here = location.href.replace(/#.*$/, '');

  // Captions and teaser cards: an image with a little text beside it in a box of their own. The text
  // is the picture's (a caption, a credit: the story never reads it); when the image links to another
  // page, the box is a teaser for that page, text and picture alike.
  for (const img of Array.from(holder.querySelectorAll('img'))) {
    if (!holder.contains(img)) continue;
    let pictured: Element = img;
    while (pictured.parentElement && pictured.parentElement !== holder && squash(pictured.parentElement) === '')
      pictured = pictured.parentElement;
    const box = pictured.parentElement;
    // A quotation beside a picture is still the quote.
    if (!box || box === holder || box.querySelectorAll('img').length > 1 || box.closest('blockquote')) continue;
    // An image inside a line of text (an emoji, an icon) is the sentence's, and so is the text.
    if (pictured === img && Array.from(box.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && squash(n) !== '')) continue;
    const text = squash(box);
    if (text === '' || text.length > 400 || box.querySelector('p p, li, table, pre, blockquote')) continue;
    const link = img.closest('a[href]') as HTMLAnchorElement | null;
    const elsewhere =
      link !== null &&
      box.contains(link) &&
      link.href.replace(/#.*$/, '') !== here &&
      !/\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(link.href);
    if (elsewhere) {
      box.remove();
      continue;
    }
    for (const node of Array.from(box.childNodes)) if (!node.contains(img) && squash(node) !== '') node.remove();
  }

  // Alt text that describes no picture in particular: a file name or a slug, the article's title
  // again, or the same words on several images. It reads as text in the answer (Markdown's ![alt]),
  // so it is emptied, the image kept.
  const images = Array.from(holder.querySelectorAll('img[alt]'));
  const alts = new Map<string, number>();
  const altOf = (img: Element) => (img.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
  for (const img of images) alts.set(altOf(img), (alts.get(altOf(img)) ?? 0) + 1);
  const heading = title.replace(/\s+/g, ' ').trim().toLowerCase();
  for (const img of images) {
    const alt = altOf(img);
    if (alt === '') continue;
    const slug = !/\s/.test(alt) && (/[-_]/.test(alt) || /\.(jpe?g|png|gif|webp|avif|svg)$/i.test(alt));
    if (slug || (alts.get(alt) ?? 0) > 1 || alt.toLowerCase() === heading) img.setAttribute('alt', '');
  }

  // Datelines: "Updated 5:27 am, Wednesday, November 20, 2019", "Posted: Fri 6:45 PM", "By … - 11/18/19".
  // A short block with a clock time or a date in it that is not a sentence; the story's sentences end.
  // Quotes keep theirs (an embedded post's date line is part of the quote).
  const dated = [
    /\b\d{1,2}:\d{2}\b/,
    /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/,
    /\b(19|20)\d{2}-\d{2}-\d{2}\b/,
    /\p{L}{3,}\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+(19|20)\d{2}\b/u,
    /\b\d{1,2}\.?\s+\p{L}{3,}\.?,?\s+(19|20)\d{2}\b/u,
  ];
  for (const el of Array.from(holder.querySelectorAll('p, div'))) {
    if (!holder.contains(el) || el.closest('blockquote') || el.querySelector('p, div, li, table, pre, img, picture, video')) continue;
    const text = squash(el);
    if (text.length === 0 || text.length >= 120 || /[.!?…]["”’')]?$/.test(text)) continue;
    if (el.querySelector('time') || dated.some((d) => d.test(text))) el.remove();
  }
}
