import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../src/util/content-disposition.js';

const ASCII_HEADER = /^[\x20-\x7e]*$/;

describe('contentDisposition', () => {
  it('inline with a plain name', () => {
    expect(contentDisposition('inline', 'screenshot.png')).toBe('inline; filename="screenshot.png"');
  });

  it('attachment with a plain name', () => {
    expect(contentDisposition('attachment', 'report.pdf')).toBe('attachment; filename="report.pdf"');
  });

  it('keeps spaces and printable ASCII as they are, without filename*', () => {
    expect(contentDisposition('attachment', "it's (1)*.png")).toBe('attachment; filename="it\'s (1)*.png"');
  });

  it('adds an RFC 6266 filename* for non-ASCII names, with an ASCII fallback', () => {
    expect(contentDisposition('attachment', 'résumé.pdf')).toBe(
      'attachment; filename="r_sum_.pdf"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.pdf',
    );
  });

  it('percent-encodes the characters RFC 5987 does not allow in filename*', () => {
    expect(contentDisposition('attachment', "ü (1)'*.png")).toBe(
      "attachment; filename=\"_ (1)'*.png\"; filename*=UTF-8''%C3%BC%20%281%29%27%2A.png",
    );
  });

  it('encodes characters outside the BMP', () => {
    expect(contentDisposition('attachment', '📷.png')).toBe('attachment; filename="__.png"; filename*=UTF-8\'\'%F0%9F%93%B7.png');
  });

  it('a double quote cannot end the quoted string early', () => {
    const header = contentDisposition('attachment', 'a"; filename="evil.exe');
    expect(header).toBe('attachment; filename="a_; filename=_evil.exe"; filename*=UTF-8\'\'a%22%3B%20filename%3D%22evil.exe');
    expect(header.match(/"/g)).toHaveLength(2);
  });

  it('a backslash is replaced in the quoted name', () => {
    expect(contentDisposition('attachment', 'a\\b.png')).toBe('attachment; filename="a_b.png"; filename*=UTF-8\'\'a%5Cb.png');
  });

  it('control characters never reach the header', () => {
    const header = contentDisposition('attachment', 'a\r\nSet-Cookie: x=1.png');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toContain('filename="a__Set-Cookie: x=1.png"');
    expect(header).toContain("filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1.png");
  });

  it.each(['screenshot.png', 'résumé.pdf', '日本語のファイル.webp', '📷 photo.jpg', 'tab\there.gif', 'x"y\\z.md'])(
    'the header for %j is printable ASCII only',
    (name) => {
      expect(contentDisposition('attachment', name)).toMatch(ASCII_HEADER);
    },
  );

  it('filename* decodes back to the original name', () => {
    const name = '日本語 (draft)*.pdf';
    const header = contentDisposition('attachment', name);
    const encoded = /filename\*=UTF-8''(.+)$/.exec(header)?.[1];
    expect(encoded).toBeDefined();
    expect(decodeURIComponent(encoded!)).toBe(name);
  });
});
