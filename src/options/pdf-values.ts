/** Parsers for the structured pdf_* values, returning null when the text is malformed. */

export interface PdfMargin {
  top: string;
  right: string;
  bottom: string;
  left: string;
}

const LENGTH = /^(\d+(\.\d+)?|\.\d+)(px|mm|cm|in)$|^0$/;

/** CSS shorthand: 1 value = all sides; 2 = vertical horizontal; 3 = top horizontal bottom; 4 = top right bottom left. */
export function parsePdfMargin(text: string): PdfMargin | null {
  const parts = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (parts.length < 1 || parts.length > 4 || !parts.every((p) => LENGTH.test(p))) return null;
  const v = parts.map((p) => (p === '0' ? '0px' : p));
  const [top, right = top, bottom = top, left = right] = v as [string, string?, string?, string?];
  return { top, right: right!, bottom: bottom!, left: left! };
}

/** "1-3,5" → [[1,3],[5,5]]; pages are 1-based and each range ascending. */
export function parsePageRanges(text: string): Array<[number, number]> | null {
  const parts = text.split(',').map((p) => p.trim());
  const ranges: Array<[number, number]> = [];
  for (const part of parts) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) return null;
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    if (start < 1 || end < start) return null;
    ranges.push([start, end]);
  }
  return ranges;
}
