import { describe, expect, it } from 'vitest';
import { parsePageRanges, parsePdfMargin } from '../../src/options/pdf-values.js';

describe('parsePdfMargin', () => {
  it('one value applies to all sides', () => {
    expect(parsePdfMargin('10mm')).toEqual({ top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' });
  });

  it('two values are vertical then horizontal', () => {
    expect(parsePdfMargin('0.5in 1in')).toEqual({ top: '0.5in', right: '1in', bottom: '0.5in', left: '1in' });
  });

  it('three values are top, horizontal, bottom', () => {
    expect(parsePdfMargin('1cm 2cm 3cm')).toEqual({ top: '1cm', right: '2cm', bottom: '3cm', left: '2cm' });
  });

  it('four values are top, right, bottom, left', () => {
    expect(parsePdfMargin('1px 2px 3px 4px')).toEqual({ top: '1px', right: '2px', bottom: '3px', left: '4px' });
  });

  it('a bare 0 becomes 0px', () => {
    expect(parsePdfMargin('0')).toEqual({ top: '0px', right: '0px', bottom: '0px', left: '0px' });
    expect(parsePdfMargin('0 5mm')).toEqual({ top: '0px', right: '5mm', bottom: '0px', left: '5mm' });
  });

  it('is case-insensitive and tolerates extra whitespace', () => {
    expect(parsePdfMargin('  10MM   .5IN ')).toEqual({ top: '10mm', right: '.5in', bottom: '10mm', left: '.5in' });
  });

  it.each(['', '   ', '10', '10pt', '10em', '-1mm', '+1mm', 'auto', '1px 2px 3px 4px 5px', '10 mm', '1mm,2mm', '1.mm', 'calc(1px)'])(
    'rejects %j',
    (text) => {
      expect(parsePdfMargin(text)).toBeNull();
    },
  );
});

describe('parsePageRanges', () => {
  it.each([
    [
      '1-3,5',
      [
        [1, 3],
        [5, 5],
      ],
    ],
    ['1', [[1, 1]]],
    ['2-2', [[2, 2]]],
    [
      ' 1 - 3 , 7 ',
      [
        [1, 3],
        [7, 7],
      ],
    ],
    [
      '10-20,3',
      [
        [10, 20],
        [3, 3],
      ],
    ],
  ])('%j → %j', (text, expected) => {
    expect(parsePageRanges(text)).toEqual(expected);
  });

  it.each(['', '0', '0-2', '3-1', '1-', '-2', '1,,2', 'a', '1;2', '1.5', '1-2-3', 'all'])('rejects %j', (text) => {
    expect(parsePageRanges(text)).toBeNull();
  });
});
