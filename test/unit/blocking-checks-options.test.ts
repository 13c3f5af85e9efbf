import { describe, expect, it } from 'vitest';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';
import { urlPattern } from '../../src/capture/blocking/request-blocking.js';

describe('block_requests patterns', () => {
  it.each([
    ['*/analytics.js*', 'https://cdn.example/x/analytics.js?v=2', true],
    ['*/analytics.js*', 'https://cdn.example/analytics.json.bak', true],
    ['*.woff2', 'https://fonts.example/a.woff2', true],
    ['*.woff2', 'https://fonts.example/a.woff2?x', false],
    ['https://cdn.example.com/*', 'https://cdn.example.com/a/b.js', true],
    ['https://cdn.example.com/*', 'https://evil.example/?https://cdn.example.com/', false],
    ['*ads*', 'https://example.com/ADS/1.png', true],
    ['https://a.example/(x)+[y]?', 'https://a.example/(x)+[y]?', true],
    ['https://a.example/(x)+[y]?', 'https://a.example/xxy', false],
  ])('%s vs %s → %s', (pattern, url, matches) => {
    expect(urlPattern(pattern).test(url)).toBe(matches);
  });
});

describe('blocking and check options', () => {
  it('accepts lists in both forms and parses status lists', () => {
    expect(parse({ block_requests: '*.png', block_resources: ['font', 'IMAGE'] })).toMatchObject({
      block_requests: ['*.png'],
      block_resources: ['font', 'image'],
    });
    // Names never hold a comma, so a query may list them in one value; a URL pattern may hold one.
    expect(parse({ block_resources: 'font, image', block_requests: '*a,b*' })).toMatchObject({
      block_requests: ['*a,b*'],
      block_resources: ['font', 'image'],
    });
    expect(problems({ block_resources: 'font,video' })[0]!.message).toContain('document, stylesheet, image');
    expect(parse({ fail_on_http_status: '404, 5xx,301' }).fail_on_http_status).toEqual([
      [404, 404],
      [500, 599],
      [301, 301],
    ]);
    expect(parse({ fail_if_content_contains: 'Sold out', fail_if_content_missing: ['Price', 'Buy'] })).toMatchObject({
      fail_if_content_contains: ['Sold out'],
      fail_if_content_missing: ['Price', 'Buy'],
    });
    expect(parse({}).block_trackers).toBe(false);
  });

  it.each([
    ['block_resources', 'video'],
    ['block_requests', Array.from({ length: 101 }, (_, i) => `*${i}*`)],
    ['block_requests', 'x'.repeat(2001)],
    ['fail_on_http_status', '4xx,abc'],
    ['fail_on_http_status', '600'],
    ['fail_on_http_status', ''],
    ['fail_if_content_contains', ''],
    ['fail_if_content_missing', Array.from({ length: 21 }, (_, i) => `t${i}`)],
    ['block_trackers', 'maybe'],
  ])('%s=%j is a 400 naming it', (name, value) => {
    const found = problems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ parameter: name, code: 'invalid_parameter' });
  });

  it('block_resources names the valid types', () => {
    expect(problems({ block_resources: 'video' })[0]!.message).toContain('document, stylesheet, image');
  });
});
