/**
 * Runs in the page, serialized like extractMainContent (nothing from outside its own body): what
 * Readability keeps around the story that readers skip and reader views leave out. It edits
 * Readability's answer in place, in the inert document, where nothing loads or runs.
 */
export function trimArticle(holder: HTMLElement, title: string): void {
  const squash = (el: Node) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  const altOf = (img: Element) => (img.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
  const here = location.href.replace(/#.*$/, '');
  /** Leaves in `el` only what holds `media`, and the blank nodes between: its words go, its pictures stay. */
  const keepOnly = (el: Element, media: string) => {
    for (const node of Array.from(el.childNodes)) {
      if (squash(node) === '') continue;
      if (node instanceof Element && (node.matches(media) || node.querySelector(media))) keepOnly(node, media);
      else node.remove();
    }
  };

  // Hover cards: a person's or a page's card inside a sentence, right after the link it belongs to, with
  // a picture and that link's words again (the site's stylesheet shows it only on hover). The card
  // goes, the sentence and its link stay.
  for (const img of Array.from(holder.querySelectorAll('p img'))) {
    for (let card = img.parentElement; card && card.tagName !== 'P' && holder.contains(card); card = card.parentElement) {
      const before = card.previousElementSibling;
      const name = before?.tagName === 'A' ? squash(before) : '';
      if (name !== '' && Array.from(card.querySelectorAll('a')).some((a) => squash(a) === name)) {
        card.remove();
        break;
      }
    }
  }

  // A figure's words are the picture's (its caption, its credit, a caption whose image never loaded),
  // however long; unless the figure holds a quotation, a listing or a table, which are read.
  for (const figure of Array.from(holder.querySelectorAll('figure'))) {
    if (!holder.contains(figure) || figure.querySelector('blockquote, pre, table, code')) continue;
    keepOnly(figure, 'img, picture, video, svg, audio');
  }

  // Captions and teaser cards: an image with a little text beside it in a box of their own. The text
  // is the picture's (a caption, a credit: the story never reads it); when the image links to another
  // page, the box is a teaser for that page, text and picture alike. Unless that text is most of the
  // answer: then the box is a short story with its picture (a news brief of one paragraph), not a
  // caption of it.
  const answered = squash(holder).length;
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
    if (text === '' || text.length > 400 || text.length > answered / 2 || box.querySelector('p p, li, table, pre, blockquote')) continue;
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

  // A block that says again what an image's alt text says is that image's caption, wherever it sits
  // (a slideshow repeats it away from its picture).
  const described = Array.from(holder.querySelectorAll('img[alt]'))
    .map(altOf)
    .filter((alt) => alt.length >= 20);
  if (described.length > 0) {
    for (const el of Array.from(holder.querySelectorAll('p, div, li, span'))) {
      if (!holder.contains(el) || el.querySelector('p, div, li, img, picture')) continue;
      const text = squash(el);
      if (text.length >= 20 && described.some((alt) => alt.includes(text))) el.remove();
    }
  }

  // A caption as a paragraph of its own: a short paragraph wholly in italics right under a block that
  // is a picture and nothing else.
  const italicOnly = (el: Element) => {
    const text = squash(el);
    if (text === '' || text.length >= 250) return false;
    const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (squash(node) !== '' && !node.parentElement?.closest('em, i')) return false;
    return true;
  };
  const pictureOnly = (el: Element | null) =>
    el !== null && squash(el) === '' && (el.matches('img, picture') || el.querySelector('img, picture') !== null);
  for (const el of Array.from(holder.querySelectorAll('p'))) {
    if (!holder.contains(el) || !italicOnly(el)) continue;
    let before = el.previousElementSibling;
    while (before && squash(before) === '' && !pictureOnly(before)) before = before.previousElementSibling;
    if (pictureOnly(before)) el.remove();
  }

  // Slideshows and image widgets: images with nothing but fragments around them (credits, "Image 1 of
  // 8", "Caption", "Close"), no sentence among them. The widest such box around each image loses its
  // words, the images stay.
  const fragmentsOnly = (el: Element) => {
    if (squash(el).length > 300) return false;
    for (const leaf of Array.from(el.querySelectorAll('p, div, li, span, h2, h3, h4, h5, h6'))) {
      if (leaf.querySelector('p, div, li')) continue;
      const text = squash(leaf);
      if (text.length >= 60 || (text.length >= 20 && /[.!?:…]["”’')]?$/.test(text))) return false;
    }
    return true;
  };
  for (const img of Array.from(holder.querySelectorAll('img'))) {
    if (!holder.contains(img)) continue;
    // An image in a paragraph's text (an inline icon, a hover card) belongs to that sentence.
    const paragraph = img.closest('p');
    if (paragraph && squash(paragraph) !== '') continue;
    let widget: Element | null = null;
    for (let at = img.parentElement; at && at !== holder && fragmentsOnly(at); at = at.parentElement) widget = at;
    if (!widget || squash(widget) === '' || widget.closest('blockquote')) continue;
    keepOnly(widget, 'img, picture');
  }

  // Alt text that describes no picture in particular: a file name or a slug, the article's title
  // again, or the same words on several images. It reads as text in the answer (Markdown's ![alt]),
  // so it is emptied, the image kept.
  const images = Array.from(holder.querySelectorAll('img[alt]'));
  const alts = new Map<string, number>();
  for (const img of images) alts.set(altOf(img), (alts.get(altOf(img)) ?? 0) + 1);
  const heading = title.replace(/\s+/g, ' ').trim().toLowerCase();
  for (const img of images) {
    const alt = altOf(img);
    if (alt === '') continue;
    const slug = !/\s/.test(alt) && (/[-_]/.test(alt) || /\.(jpe?g|png|gif|webp|avif|svg)$/i.test(alt));
    if (slug || (alts.get(alt) ?? 0) > 1 || alt.toLowerCase() === heading) img.setAttribute('alt', '');
  }

  // A photo credit at the end of an alt text ("… in Hanoi. Photo: Hau Dinh, AP / Copyright 2019 …",
  // "(Credit: Getty Images)", "(AP Photo/…)", "© …"): the description stays, the credit goes, as
  // credits beside a picture do. Only after a description, not when the alt is nothing but a credit.
  const credit =
    /\s*[([]?\s*(?:[A-Z]{2,}\s+)?(?:(?:[Pp]hoto(?:graph)?|[Ii]mage|[Pp]icture|[Cc]redit|[Ss]ource)s?\s*(?:by\b|:|\/)|©|\([Cc]\)|[Cc]opyright\b)[^]*$/u;
  for (const img of images) {
    const alt = altOf(img);
    const at = alt.search(credit);
    if (at >= 20) img.setAttribute('alt', alt.slice(0, at).trim());
  }

  // An ad slot's label left over its empty slot ("Advertisement", "Anzeige", "Iklan"…): a block with
  // that one word and nothing else.
  const adLabel =
    /^(advert|advertisement|advertising|ad|ads|sponsored|anzeige|werbung|publicidad|publicidade|publicité|pubblicità|advertentie|reklama|реклама|iklan|広告|スポンサードリンク|スポンサーリンク|광고|广告)$/iu;
  for (const el of Array.from(holder.querySelectorAll('p, div, span, li, h2, h3, h4, h5, h6'))) {
    if (holder.contains(el) && !el.querySelector('img, picture, video') && adLabel.test(squash(el))) el.remove();
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
