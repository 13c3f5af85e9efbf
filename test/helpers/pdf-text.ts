import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';

/**
 * The text of a PDF as a reader would copy it, and whether any glyph was drawn as .notdef (tofu).
 * Written for what Chromium (Skia) prints, so that no PDF tool has to be installed: fonts with a
 * ToUnicode map, hex strings, and /ActualText spans, which Skia wraps around every cluster whose glyphs
 * do not map one to one onto characters (Indic conjuncts, but also the .notdef boxes of a missing font:
 * that is why the text alone cannot tell tofu from letters, and `notdef` is counted apart).
 */
export interface PdfText {
  text: string;
  /** Glyph 0 drawn from a CID (Type0) font: the box a font without the character shows. */
  notdef: number;
  /** BaseFont names without the subset tag, e.g. NotoSansTamil-Regular. */
  fonts: string[];
}

interface Font {
  bytes: 1 | 2;
  toUnicode: Map<number, string>;
}

const utf16 = (hex: string): string => {
  const clean = hex.replace(/\s+/g, '');
  const bytes = Buffer.from(clean.length % 2 ? clean + '0' : clean, 'hex');
  // ActualText carries a byte-order mark; ToUnicode targets are plain UTF-16BE.
  const body = bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2) : bytes;
  let out = '';
  for (let i = 0; i + 1 < body.length; i += 2) out += String.fromCharCode(body.readUInt16BE(i));
  return out;
};

function parseCMap(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, src, dst] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>/g)) map.set(parseInt(src!, 16), utf16(dst!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, dst] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])/g)) {
      const [from, to] = [parseInt(lo!, 16), parseInt(hi!, 16)];
      if (dst!.startsWith('[')) {
        [...dst!.matchAll(/<([0-9A-Fa-f]*)>/g)].forEach((m, i) => map.set(from + i, utf16(m[1]!)));
      } else {
        const first = utf16(dst!.slice(1, -1));
        for (let code = from; code <= to; code++) {
          map.set(code, first.slice(0, -1) + String.fromCharCode(first.charCodeAt(first.length - 1) + code - from));
        }
      }
    }
  }
  return map;
}

function streamText(doc: PDFDocument, object: PDFObject | undefined): string {
  const resolved = object instanceof PDFRef ? doc.context.lookup(object) : object;
  if (resolved instanceof PDFArray)
    return resolved
      .asArray()
      .map((part) => streamText(doc, part))
      .join('\n');
  if (resolved instanceof PDFRawStream) return Buffer.from(decodePDFRawStream(resolved).decode()).toString('latin1');
  return '';
}

function fontsOf(doc: PDFDocument, resources: PDFDict | undefined, names?: Set<string>): Map<string, Font> {
  const fonts = new Map<string, Font>();
  const dict = resources?.lookupMaybe(PDFName.of('Font'), PDFDict);
  for (const [name, ref] of dict?.entries() ?? []) {
    const font = doc.context.lookup(ref, PDFDict);
    names?.add((font.lookupMaybe(PDFName.of('BaseFont'), PDFName)?.decodeText() ?? '').replace(/^[A-Z]{6}\+/, ''));
    const type0 = font.get(PDFName.of('Subtype')) === PDFName.of('Type0');
    fonts.set(name.asString().replace(/^\//, ''), {
      bytes: type0 ? 2 : 1,
      toUnicode: parseCMap(streamText(doc, font.get(PDFName.of('ToUnicode')))),
    });
  }
  return fonts;
}

const TOKEN = /<<|>>|\[|\]|<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\)|\/[^\s/<>[\]()]+|[-+]?[\d.]+|[A-Za-z'"*]+/g;

/** Runs the text operators of every page's content stream (Tf, Tj, TJ, BDC/EMC). */
export async function pdfText(pdf: Uint8Array): Promise<PdfText> {
  const doc = await PDFDocument.load(pdf);
  let text = '';
  let notdef = 0;
  const names = new Set<string>();
  for (const page of doc.getPages()) {
    const fonts = fontsOf(doc, page.node.Resources(), names);
    let font: Font | undefined;
    // One entry per open marked-content span: its ActualText, or null for a span without one.
    const spans: Array<string | null> = [];
    let operands: string[] = [];
    const show = (hex: string) => {
      const codes = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
      const bytes = font?.bytes ?? 1;
      for (let i = 0; i + bytes <= codes.length; i += bytes) {
        const code = bytes === 2 ? codes.readUInt16BE(i) : codes[i]!;
        if (bytes === 2 && code === 0) notdef++;
        if (!spans.some((s) => s !== null)) text += font?.toUnicode.get(code) ?? '';
      }
    };
    for (const [token] of streamText(doc, page.node.Contents()).matchAll(TOKEN)) {
      if (!/^[A-Za-z'"*]+$/.test(token)) {
        operands.push(token);
        continue;
      }
      const hexes = operands.filter((o) => o.startsWith('<') && o !== '<<').map((o) => o.slice(1, -1));
      if (token === 'Tf') font = fonts.get(operands[operands.length - 2]?.slice(1) ?? '');
      else if (token === 'Tj' || token === 'TJ') hexes.forEach(show);
      else if (token === 'BDC' || token === 'BMC') {
        const actual = operands.indexOf('/ActualText');
        spans.push(actual >= 0 ? utf16(operands[actual + 1]!.slice(1, -1)) : null);
      } else if (token === 'EMC') {
        const actual = spans.pop();
        if (actual && !spans.some((s) => s !== null)) text += actual;
      } else if (token === 'ET') text += '\n';
      operands = [];
    }
  }
  return { text, notdef, fonts: [...names].sort() };
}
