import { describe, expect, it } from 'vitest';
import { ParsedQueries } from '../../src/http/parsed-queries.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const parse = (query: string) => () => parseTakeOptions(Object.fromEntries(new URLSearchParams(query)), { countries: [] });

describe('ParsedQueries', () => {
  it('parses a query string once and shares the frozen options', () => {
    const queries = new ParsedQueries();
    let parses = 0;
    const counted = (query: string) => () => {
      parses++;
      return parse(query)();
    };
    const q = 'url=https%3A%2F%2Fexample.com%2F&hide_selectors=.ad&hide_selectors=.cookie&cache=1';
    const first = queries.get(`key?${q}`, counted(q));
    const second = queries.get(`key?${q}`, counted(q));
    expect(second).toBe(first);
    expect(parses).toBe(1);
    expect(first).toEqual(parse(q)());
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.hide_selectors)).toBe(true);
    expect(() => (first.hide_selectors as string[]).push('.x')).toThrow(TypeError);
  });

  it('does not remember invalid queries or cookies (whose Max-Age counts from the parse)', () => {
    const queries = new ParsedQueries();
    expect(() => queries.get('key?viewport_width=abc', parse('url=https%3A%2F%2Fexample.com%2F&viewport_width=abc'))).toThrow();
    expect(queries.size).toBe(0);
    const q = `url=https%3A%2F%2Fexample.com%2F&cookies=${encodeURIComponent('a=b; Max-Age=60')}`;
    const options = queries.get(`key?${q}`, parse(q));
    expect(options.cookies).toHaveLength(1);
    expect(queries.size).toBe(0);
    expect(Object.isFrozen(options)).toBe(false);
  });

  it('remembers at most its bound, the least recently used going first', () => {
    const queries = new ParsedQueries(3);
    const q = (n: number) => `url=https%3A%2F%2Fexample.com%2F${n}`;
    const one = queries.get(q(1), parse(q(1)));
    const two = queries.get(q(2), parse(q(2)));
    queries.get(q(3), parse(q(3)));
    expect(queries.get(q(1), parse(q(1)))).toBe(one);
    queries.get(q(4), parse(q(4)));
    expect(queries.size).toBe(3);
    expect(queries.get(q(1), parse(q(1)))).toBe(one);
    // 2 was the least recently used: parsed again.
    expect(queries.get(q(2), parse(q(2)))).not.toBe(two);
  });
});
