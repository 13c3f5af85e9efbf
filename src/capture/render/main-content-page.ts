/** What the page answered: the main content as HTML, or found=false when it has none. */
export interface MainContentFound {
  found: boolean;
  /** The article's title, as the reader view shows it. */
  title: string;
  /** The main content's HTML (with its title as an h1), or '' when none was found. */
  html: string;
  /** Why none was found, for the logs. */
  reason?: string;
}

/** The constructor of @mozilla/readability's Readability, as its script defines it in the page. */
type ReadabilityClass = new (
  doc: Document,
  options: { charThreshold: number; keepClasses: boolean },
) => { parse(): { title?: string | null; content?: string | null; textContent?: string | null } | null };

/**
 * Runs in the page, serialized: it may use nothing from outside its own body (no imports, no module
 * helpers). The live DOM is what only the browser knows: computed visibility, boxes and positions.
 * They decide what Readability is never shown (hidden, off-screen, fixed or sticky overlays, dialogs,
 * blocks repeated across the page), then Readability scores the rest, and the answer is checked for
 * being an article at all (a portal of teasers has none).
 */
export function extractMainContent(
  Readability: ReadabilityClass,
  rootSelector: string | null,
  trimArticle: (holder: HTMLElement, title: string) => void,
): MainContentFound {
  const root = rootSelector ? document.querySelector(rootSelector) : document.body;
  if (!root) return { found: false, title: '', html: '', reason: 'no root' };
  const rootText = (root.textContent ?? '').length;
  const live = Array.from(root.querySelectorAll('*'));
  const clone = root.cloneNode(true) as HTMLElement;
  const copies = Array.from(clone.querySelectorAll('*'));
  const drop = new Set([
    'SCRIPT',
    'STYLE',
    'NOSCRIPT',
    'TEMPLATE',
    'IFRAME',
    'CANVAS',
    'LINK',
    'META',
    'OBJECT',
    'EMBED',
    'BUTTON',
    'DIALOG',
  ]);
  const docWidth = Math.max(document.documentElement.scrollWidth, innerWidth);
  const adSizes: Array<[number, number]> = [
    [300, 250],
    [728, 90],
    [300, 600],
    [160, 600],
    [120, 600],
    [320, 50],
    [320, 100],
    [970, 90],
    [970, 250],
    [336, 280],
    [468, 60],
    [250, 250],
    [300, 50],
  ];
  const squash = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  const linkTextOf = (el: Element) => Array.from(el.querySelectorAll('a')).reduce((n, a) => n + squash(a).length, 0);
  const adName = /(^|[\s_-])(ad|ads|adv|advert|advertisement|adslot|adunit|ad-slot|ad-unit|dfp|gpt-ad|sponsored|banner-ad)([\s_-]|$)/i;
  // An embedded post, as a social network's embed code leaves it when its script does not run: a
  // quotation signed "— Name (@handle) November 18, 2019".
  const attributed = /[—–]\s*[^()]{1,80}\(@[\w.]{1,30}\)[^()]{0,40}$/u;
  const counted = new Map<string, Element[]>();
  const blocks: Array<[Element, string]> = [];
  let dropped: Element | null = null;
  for (let i = 0; i < live.length; i++) {
    const el = live[i]!;
    const copy = copies[i] as HTMLElement | undefined;
    if (!copy) continue;
    // Descendants of a dropped element go with it; no need to look at them.
    if (dropped && dropped.contains(el)) continue;
    const tag = el.tagName.toUpperCase();
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    // textContent, not innerText: innerText lays out each time, and this runs for every element.
    const textLength = () => (el.textContent ?? '').length;
    const role = el.getAttribute('role');
    // A nav element is navigation whatever its role says, breadcrumbs in the article's column too.
    const chrome =
      tag === 'NAV' ||
      role === 'navigation' ||
      role === 'banner' ||
      role === 'contentinfo' ||
      role === 'complementary' ||
      role === 'search';
    const overlay =
      (chrome || style.position === 'fixed' || style.position === 'sticky') &&
      // A page laid out inside one fixed scroller (or a mislabelled wrapper) keeps its article.
      textLength() < rootText * 0.3;
    const hidden =
      el.getAttribute('aria-hidden') === 'true' ||
      (el as HTMLElement).hidden ||
      style.display === 'none' ||
      style.visibility === 'hidden' ||
      Number(style.opacity) === 0;
    // Screen-reader-only text, "skip to content" links and parked drawers: boxes outside the page.
    const offPage =
      rect.right + scrollX <= 0 ||
      rect.bottom + scrollY <= 0 ||
      rect.left + scrollX >= docWidth ||
      (rect.width <= 1 && rect.height <= 1 && style.overflow === 'hidden');
    const collapsed = (rect.width === 0 || rect.height === 0) && style.overflow === 'hidden' && textLength() > 0;
    const dialog = role === 'dialog' || role === 'alertdialog' || el.getAttribute('aria-modal') === 'true';
    // Ad slots: the IAB sizes ad servers fill (a browser-only clue: the box, not the markup), or a
    // small box named like an ad.
    const w = Math.round(rect.width);
    const h = Math.round(rect.height);
    const ad =
      adSizes.some(([aw, ah]) => Math.abs(w - aw) <= 2 && Math.abs(h - ah) <= 2) ||
      (adName.test(`${el.id} ${typeof el.className === 'string' ? el.className : ''}`) && textLength() < 400);
    const pixel =
      el instanceof HTMLImageElement && el.complete && el.naturalWidth <= 2 && el.naturalHeight <= 2 && rect.width <= 2 && rect.height <= 2;
    // A caption or a photo credit, by its name (which Readability's answer no longer has); a box so named
    // that holds the picture too is left to the rules after Readability.
    const caption =
      /caption|credit/i.test(`${el.id} ${typeof el.className === 'string' ? el.className : ''}`) &&
      textLength() < 400 &&
      !el.querySelector('img, picture, video');
    if (drop.has(tag) || hidden || overlay || offPage || collapsed || dialog || ad || pixel || caption) {
      copy.setAttribute('data-shutter-drop', '');
      dropped = el;
      continue;
    }
    // Its font size, to tell the story's fine print from its running text once Readability has answered.
    if (tag === 'P') copy.setAttribute('data-shutter-size', style.fontSize);
    if (el instanceof HTMLAnchorElement && el.getAttribute('href')) copy.setAttribute('href', el.href);
    if (el instanceof HTMLImageElement) copy.setAttribute('src', el.currentSrc || el.src);
    // Blocks with links that come back elsewhere on the page (share bars, "subscribe" boxes above and
    // below the article, repeated teasers) are the site's, not the article's.
    const block = tag === 'DIV' || tag === 'SECTION' || tag === 'ASIDE' || tag === 'UL' || tag === 'NAV';
    if (block && el.querySelector('a')) {
      const key = squash(el);
      if (key.length < 20 || key.length > 400) continue;
      // An embedded post (below) in wrappers nested around it counts once per wrapper, a "repeat" that
      // is not one. (Nested wrappers around other words are left to count: on the benchmark they are
      // mostly widgets, author boxes and newsletter sign-ups, and counting them once cost precision.)
      const quote = el.querySelector('blockquote');
      if (quote && attributed.test(key) && squash(quote) === key) continue;
      const same = counted.get(key);
      if (same) same.push(el);
      else counted.set(key, [el]);
      blocks.push([copy, key]);
    }
  }
  // A short story in wrappers nested around it is not a repeat of itself: when every copy of the words
  // sits inside the one before and one of them is named as the article's body. (Other nested wrappers,
  // author boxes and sign-ups, still count as repeats: counting them once cost precision.)
  // A whole name, not a part of one: "article-body__newsletter" is a box inside the body, named after it.
  const bodyName = /^(article[-_]?(body|content|text)|story[-_]?(body|content)|entry[-_]?content|post[-_]?(body|content))$/i;
  const namedBody = (el: Element) =>
    el.getAttribute('itemprop') === 'articleBody' ||
    [el.id, ...(typeof el.className === 'string' ? el.className.split(/\s+/) : [])].some((name) => bodyName.test(name));
  for (const [copy, key] of blocks) {
    const copiesOf = counted.get(key) ?? [];
    const nested = copiesOf.every((el, i) => i === 0 || copiesOf[i - 1]!.contains(el));
    if (copiesOf.length > 1 && !(nested && copiesOf.some(namedBody))) copy.setAttribute('data-shutter-drop', '');
  }
  // Posts side by side: of sibling article elements, the one holding the page's h1 and a story's worth
  // of text is the page's; the others are other posts (a blog's excerpts of its latest, under the story),
  // which Readability would join to it as siblings of the same kind.
  const indexOf = new Map(live.map((el, i) => [el, i]));
  for (const parent of new Set(Array.from(root.querySelectorAll('article')).map((a) => a.parentElement))) {
    const posts = Array.from(parent?.children ?? []).filter((el) => el.tagName === 'ARTICLE');
    const titled = posts.filter((post) => post.querySelector('h1'));
    if (posts.length < 2 || titled.length !== 1 || squash(titled[0]!).length < 500) continue;
    for (const post of posts) if (post !== titled[0]) copies[indexOf.get(post) ?? -1]?.setAttribute('data-shutter-drop', '');
  }
  clone.querySelectorAll('[data-shutter-drop]').forEach((el) => el.remove());
  // Embedded posts quoted in the story sit in a box of their own, named like a widget ("social",
  // "embed", "media"), which Readability drops as unlikely or link-heavy. The box is taken away and
  // the quotation stays in its place, where Readability reads it with the story.
  for (const quote of Array.from(clone.querySelectorAll('blockquote'))) {
    const text = squash(quote);
    if (!attributed.test(text)) continue;
    let box: Element = quote;
    while (box.parentElement && box.parentElement !== clone && squash(box.parentElement) === text) box = box.parentElement;
    if (box !== quote) box.replaceWith(quote);
  }

  const doc = document.implementation.createHTMLDocument(document.title);
  // Readability reads the title and byline hints from the head.
  for (const m of Array.from(document.head?.querySelectorAll('meta[property], meta[name]') ?? []))
    doc.head.appendChild(doc.importNode(m, true));
  const body = doc.importNode(clone, true) as HTMLElement;
  if (body.tagName === 'BODY') doc.body.replaceWith(body);
  else doc.body.appendChild(body);

  // Readability retries until an answer has charThreshold characters of text, and otherwise keeps its
  // longest try: a short story in a script that writes a word in one or two characters (a 300-character
  // news item in Japanese) lost to an English copyright notice. Such pages get half the threshold.
  const cjk = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
  const letters = squash(clone).replace(/\s/g, '');
  const dense = (letters.match(new RegExp(cjk.source, 'g'))?.length ?? 0) > letters.length * 0.3;
  const article = new Readability(doc, { charThreshold: dense ? 250 : 500, keepClasses: false }).parse();
  if (!article?.content) return { found: false, title: '', html: '', reason: 'readability found nothing' };
  // In the inert document: nothing in the answer loads or runs.
  const holder = doc.createElement('div');
  holder.innerHTML = article.content;
  // What Readability keeps that is the site's, not the story's. Captions and photo credits.
  for (const el of Array.from(holder.querySelectorAll('figcaption'))) {
    if (squash(el).length < 400) el.remove();
  }
  trimArticle(holder, article.title ?? '');
  // A link line ending in a price is an offer ("Get it on Amazon for $39.99"), what a deals post is made
  // of; kept as a line of its own or a list of offers (a list of headlines, one of them ending in a
  // price, is still a list of other pages).
  const offer = (el: Element) => /(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?[$€£¥₹])$/u.test(squash(el));
  // Lines that are a link and little else: "Read more: …", "You may also like" lists, section labels,
  // "Get the app by clicking here". The story's own links sit inside its sentences.
  // Blocks only: a linked phrase inside a sentence (or a list item that starts with one) is the story's.
  const linkLine = (el: Element) => {
    const text = squash(el);
    return text.length > 0 && text.length < 300 && (el.closest('a') !== null || linkTextOf(el) >= text.length * 0.8);
  };
  for (const el of Array.from(holder.querySelectorAll('p, h2, h3, h4, h5, h6, div'))) {
    if (!holder.contains(el) || el.querySelector('p, li, div, img, picture, video, table, pre')) continue;
    if (linkLine(el) && !offer(el)) el.remove();
  }
  // A list of nothing but links is a list of other pages (related stories, a section's latest).
  for (const list of Array.from(holder.querySelectorAll('ul, ol'))) {
    const items = Array.from(list.children).filter((li) => squash(li) !== '');
    if (items.length > 0 && items.every(linkLine) && !items.every(offer)) list.remove();
  }
  // The site talking to the reader after the story: "Sign up for our newsletter", "Have a tip? Email …,
  // follow us on …", "Click here to download", a cookie notice. A short paragraph that links somewhere
  // (or gives an address), asks the reader to do something and has little of the answer after it. Only
  // at the end, where sites put them: a sentence of the story may ask readers to sign up too. The words
  // are the reader's, not a story's ("join the company", "delivered to", "subscription" end stories).
  const callToAction =
    /\b(cookies\b[^]*\b(accept|agree|consent|opt[- ]?out)|subscribe|sign(ing)? up|newsletters?|follow (us|him|her|me|them)\b|join (our|us)\b|inbox|click here)/i;
  // The answer's text after a node (the range is left spanning it, for the rules below to act on).
  const tail = holder.ownerDocument.createRange();
  const textAfter = (node: Node) => {
    tail.setStartAfter(node);
    tail.setEnd(holder, holder.childNodes.length);
    return tail.toString().replace(/\s+/g, ' ').trim();
  };
  for (const el of Array.from(holder.querySelectorAll('p, div')).reverse()) {
    if (el.querySelector('p, div, li, table, blockquote, pre, h1, h2, h3, h4, h5, h6')) continue;
    const text = squash(el);
    if (text.length >= 300 || !(el.querySelector('a[href]') || text.includes('@')) || !callToAction.test(text)) continue;
    if (textAfter(el).length < 300) el.remove();
  }
  // Lists and headings left with nothing under them.
  for (const el of Array.from(holder.querySelectorAll('ul, ol'))) if (squash(el) === '' && !el.querySelector('img')) el.remove();
  const empty = (el: Element) => squash(el) === '' && !el.querySelector('img, picture, video, svg, table');
  // Headings are read from the last; once one has more than a fragment after it, so have all before it.
  let nearEnd = true;
  for (const h of Array.from(holder.querySelectorAll('h2, h3, h4, h5, h6')).reverse()) {
    // The next element in reading order with something in it.
    let at: Element | null = h;
    let next: Element | null = null;
    while (at && at !== holder && !next) {
      let sibling = at.nextElementSibling;
      while (sibling && empty(sibling)) sibling = sibling.nextElementSibling;
      next = sibling;
      at = at.parentElement;
    }
    if (!next || /^H[1-6]$/.test(next.tagName)) {
      h.remove();
      continue;
    }
    // A heading at the end over a fragment, no sentence and no picture: what is left of a widget that
    // did not load ("Comments" over "0 comments", "Tell us what you think" over a counter). Both go.
    if (!nearEnd) continue;
    const after = textAfter(h);
    nearEnd = after.length < 25;
    if (nearEnd && !/[.!?…]["”’')]?$/.test(after) && !tail.cloneContents().querySelector('img, picture, video, svg, table')) {
      tail.deleteContents();
      h.remove();
    }
  }
  const holderText = squash(holder);
  const linkText = linkTextOf(holder);
  // An article has at least one block of running text (a paragraph, not a teaser's line or a link
  // list); a portal's answer is headings and one-line teasers. Its length in characters, so that a
  // short news item passes, and lower for scripts that write a word in one or two characters.
  const leafBlocks = 'p, pre, blockquote, li, td, dd, div, section, article';
  let longest = 0;
  for (const block of Array.from(holder.querySelectorAll(leafBlocks))) {
    if (block.querySelector(leafBlocks)) continue;
    longest = Math.max(longest, squash(block).length - linkTextOf(block));
  }
  const denseAnswer = cjk.test(holderText);
  if (holderText.length < (denseAnswer ? 100 : 200) || linkText > holderText.length * 0.5 || longest < (denseAnswer ? 50 : 100)) {
    return {
      found: false,
      title: '',
      html: '',
      reason: `not an article (text ${holderText.length}, links ${linkText}, longest block ${longest})`,
    };
  }
  // Fine print: paragraphs set clearly smaller than the answer's running text (the font size most of its
  // paragraph text is set in) are the site's small print, not the story's: a company boilerplate under
  // a press release, a moderation notice, a disclaimer. Measured on the answer, not on the page, whose
  // sidebars and footers can outweigh a short story; and after the check above, which asks whether
  // Readability found an article at all (a standings table with a note in small print is one).
  // A paragraph Readability made out of lines split by <br> sits in the one it came from, now a div.
  const sized = Array.from(holder.querySelectorAll('p'))
    .map((p) => ({
      p,
      size: parseFloat(p.closest('[data-shutter-size]')?.getAttribute('data-shutter-size') ?? ''),
      length: squash(p).length,
    }))
    .filter(({ size, length }) => size > 0 && length > 0)
    .sort((a, b) => a.size - b.size);
  const sizedText = sized.reduce((n, { length }) => n + length, 0);
  let upTo = 0;
  const running = sized.find(({ length }) => (upTo += length) >= sizedText / 2)?.size ?? 0;
  for (const { p, size } of sized) if (size <= running * 0.8) p.remove();
  holder.querySelectorAll('[data-shutter-size]').forEach((el) => el.removeAttribute('data-shutter-size'));
  const title = headline((article.title ?? '').replace(/\s+/g, ' ').trim());
  const firstHeading = holder.querySelector('h1, h2');
  const hasTitle = title !== '' && firstHeading !== null && squash(firstHeading) === title;
  const heading = document.createElement('h1');
  heading.textContent = title;
  const html = `${title && !hasTitle ? heading.outerHTML : ''}${holder.innerHTML}`;
  return { found: true, title, html };

  /**
   * Readability's title is the page's (or its og:title) less a site name behind | - \ / > », when it
   * finds one. The page's own visible h1, when the title starts or ends with it and the rest is a
   * separator and a shorter name, is the headline itself: "Big story — Site", "Opinion | Big story".
   * (A site's name set as its h1 is the shorter part, and stays out.)
   */
  function headline(title: string): string {
    const lower = title.toLowerCase();
    for (const h1 of Array.from(root!.querySelectorAll('h1'))) {
      const words = squash(h1);
      const box = h1.getBoundingClientRect();
      if (words.length < 3 || words.length === title.length || box.width === 0 || box.height === 0) continue;
      const own = words.toLowerCase();
      const rest = lower.startsWith(own) ? title.slice(words.length) : lower.endsWith(own) ? title.slice(0, -words.length) : undefined;
      if (rest !== undefined && rest.length < words.length && /^\s*[|\-–—·:»/\\]\s+\S|\S(\s+[|\-–—·»/\\]|:)\s*$/u.test(rest)) return words;
    }
    return title;
  }
}
