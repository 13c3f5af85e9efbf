/**
 * Article-body scoring as scrapinghub/article-extraction-benchmark's evaluate.py does it: `\w+`
 * tokens (Unicode letters, digits and `_`; case kept), shingles of 4 tokens counted as a multiset,
 * each page's true/false positives and misses normalized to sum 1 so long pages weigh no more, and
 * precision, recall and F1 from the means over pages.
 */

/** One page's shingle counts: tp, fp, fn normalized to sum 1 (all 0 when both texts are empty). */
export interface PageMatch {
  tp: number;
  fp: number;
  fn: number;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

/** The tokens of a text, as Python's `re.findall(r'\w+')` finds them. */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** The text's shingles of `n` tokens with their counts; a text shorter than n is one shingle. */
export function shingles(text: string, n = 4): Map<string, number> {
  const t = tokens(text);
  const counts = new Map<string, number>();
  for (let i = 0; i < Math.max(1, t.length - n + 1); i++) {
    const key = t.slice(i, i + n).join('\u0001');
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** How `pred` matches `gold`, by shingles. */
export function matchPage(gold: string, pred: string, n = 4): PageMatch {
  const g = shingles(gold, n);
  const p = shingles(pred, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...g.keys(), ...p.keys()])) {
    const gc = g.get(key) ?? 0;
    const pc = p.get(key) ?? 0;
    tp += Math.min(gc, pc);
    fp += Math.max(0, pc - gc);
    fn += Math.max(0, gc - pc);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp: 0, fp: 0, fn: 0 };
}

const precisionOf = ({ tp, fp, fn }: PageMatch) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
const recallOf = ({ tp, fp, fn }: PageMatch) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Mean precision and recall over pages (pages with nothing predicted / nothing expected left out of each), and their F1. */
export function score(pages: readonly PageMatch[]): { precision: number; recall: number; f1: number } {
  const precision = mean(pages.filter((m) => m.tp + m.fp > 0).map(precisionOf));
  const recall = mean(pages.filter((m) => m.tp + m.fn > 0).map(recallOf));
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** A link's or an image's target, parentheses in the URL included: `(https://x.test/a_(b))`. */
const TARGET = String.raw`\((?:[^()]|\([^)]*\))*\)`;
const IMAGE = new RegExp(String.raw`!\[([^\]]*)\]` + TARGET, 'g');
const LINK_TARGET = new RegExp(String.raw`\]` + TARGET, 'g');

/**
 * Markdown's text as a reader sees it: link and image targets, emphasis and table syntax left out.
 * An image reads as its alt text, or with `images: 'none'` as nothing (the rendered Markdown's text).
 */
export function markdownText(markdown: string, { images = 'alt' }: { images?: 'alt' | 'none' } = {}): string {
  return markdown
    .replace(IMAGE, images === 'alt' ? '$1' : '')
    .replace(LINK_TARGET, ']')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
}
