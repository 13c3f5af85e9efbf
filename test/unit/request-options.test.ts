import { describe, expect, it } from 'vitest';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';
import { parseSetCookie } from '../../src/options/parameters/request-shaping.js';

describe('headers', () => {
  it('takes "Name: value" strings or an object; names are lowercased, values trimmed', () => {
    expect(parse({ headers: ['X-Test: 1', 'Authorization:  Bearer a:b '] }).headers).toEqual([
      ['x-test', '1'],
      ['authorization', 'Bearer a:b'],
    ]);
    expect(parse({ headers: { 'Accept-Language': 'de' } }).headers).toEqual([['accept-language', 'de']]);
  });

  it.each([
    ['Host: evil.example', 'Host may not be set'],
    ['content-length: 5', 'content-length may not be set'],
    ['Proxy-Authorization: x', 'Proxy-Authorization may not be set'],
    ['Cookie: a=b', 'Cookie may not be set'],
    ['Transfer-Encoding: chunked', 'may not be set'],
    ['X-Evil: a\r\nX-Injected: b', 'contains CR, LF'],
    ['Bad Name: x', 'is not a valid header name'],
    ['no colon here', 'is not "Name: value"'],
  ])('%j is a 400: %s', (header, message) => {
    const [p] = problems({ headers: header });
    expect(p).toMatchObject({ parameter: 'headers', code: 'invalid_parameter' });
    expect(p!.message).toContain(message);
  });

  it('at most 50', () => {
    expect(problems({ headers: Array.from({ length: 51 }, (_, i) => `X-H${i}: 1`) })[0]!.message).toContain('at most 50 headers');
    expect(parse({ headers: Array.from({ length: 50 }, (_, i) => `X-H${i}: 1`) }).headers).toHaveLength(50);
  });
});

describe('cookies', () => {
  it('parses Set-Cookie syntax', () => {
    expect(parseSetCookie('sid=a=b; Domain=example.com; Path=/app; Secure; HttpOnly; SameSite=lax; Max-Age=60')).toMatchObject({
      name: 'sid',
      value: 'a=b',
      domain: 'example.com',
      path: '/app',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
      expires: expect.any(Number),
    });
    expect(parseSetCookie('x=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT')).toMatchObject({ expires: 4096250880 });
  });

  it('takes strings or objects, at most 50', () => {
    expect(parse({ cookies: ['a=1', 'b=2; Path=/'] }).cookies).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: '2', path: '/' },
    ]);
    expect(parse({ cookies: { name: 'c', value: '3', httpOnly: true } }).cookies).toEqual([{ name: 'c', value: '3', httpOnly: true }]);
    expect(problems({ cookies: Array.from({ length: 51 }, (_, i) => `c${i}=1`) })[0]!.message).toContain('at most 50 cookies');
  });

  it.each([
    ['=nameless', 'must start with name=value'],
    ['a=1; SameSite=sometimes', 'SameSite must be Strict, Lax or None'],
    ['a=1; Expires=someday', 'is not a date'],
    ['a=1; Colour=blue', 'unknown attribute'],
    ['a=1\r\nSet-Cookie: b=2', 'control character'],
  ])('%j is a 400: %s', (cookie, message) => {
    const [p] = problems({ cookies: cookie });
    expect(p).toMatchObject({ parameter: 'cookies', code: 'invalid_parameter' });
    expect(p!.message).toContain(message);
  });

  it('an object with an unknown key or a bad name is a 400', () => {
    expect(problems({ cookies: { name: 'a', value: '1', colour: 'x' } })[0]).toMatchObject({ parameter: 'cookies' });
    expect(problems({ cookies: [{ name: 'a b', value: '1' }] })[0]).toMatchObject({ parameter: 'cookies' });
  });
});
