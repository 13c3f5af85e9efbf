import { describe, expect, it } from 'vitest';
import { markdownText, matchPage, score, shingles, tokens } from '../../bench/lib/shingles.js';

describe('article-body scoring (bench/main-content-eval.ts)', () => {
  it('tokenizes on word characters in any script, keeping case', () => {
    expect(tokens('Hello, wörld! 3.5 «Мир» snake_case')).toEqual(['Hello', 'wörld', '3', '5', 'Мир', 'snake_case']);
  });

  it('counts shingles of four tokens; a shorter text is one shingle', () => {
    expect([...shingles('a b c d e').values()]).toEqual([1, 1]);
    expect(shingles('a b c d a b c d').get('a\u0001b\u0001c\u0001d')).toBe(2);
    expect([...shingles('one two').keys()]).toEqual(['one\u0001two']);
  });

  it('normalizes one page to sum 1: half extra text is precision 0.5', () => {
    const gold = 'w1 w2 w3 w4 w5 w6 w7';
    expect(matchPage(gold, gold)).toEqual({ tp: 1, fp: 0, fn: 0 });
    const m = matchPage(gold, `${gold} x1 x2 x3 x4 x5 x6 x7`);
    // 4 gold shingles kept, 7 new ones (3 across the seam, 4 of the extra text).
    expect(m.tp / (m.tp + m.fp)).toBeCloseTo(4 / 11);
    expect(m.fn).toBe(0);
  });

  it('averages precision and recall over pages, then F1 of the means', () => {
    const perfect = matchPage('a b c d e', 'a b c d e');
    const nothing = matchPage('a b c d e', '');
    const s = score([perfect, nothing]);
    expect(s.recall).toBeCloseTo(0.5);
    expect(s.precision).toBeCloseTo(1); // a page with nothing predicted has no precision
    expect(s.f1).toBeCloseTo(2 / 3);
  });

  it('reads Markdown as text: no link targets, image alt kept, escapes undone', () => {
    expect(markdownText('See [the *report*](https://x.test/a_(b)) and ![a chart](c.png) 1\\. done \\_x')).toBe(
      'See [the *report*] and a chart 1. done _x',
    );
    expect(markdownText('See ![a chart](c_(1).png) here', { images: 'none' })).toBe('See  here');
    // An image URL with parentheses in it (vox.com's image service) leaves nothing of the URL behind.
    expect(markdownText('![A photo](https://cdn.test/crop/0x0:3000x2000/filters:focal(1500x1000:1501x1001)/a.jpg) after')).toBe(
      'A photo after',
    );
  });
});
