import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';

/**
 * A lossless PNG writer for screenshots: each band of rows gets the PNG filter that suits its
 * content (libpng's heuristic on a sample of the band, or one filter given), and the filtered rows
 * are compressed by Node's zlib on libuv's thread pool, in segments that run in parallel with each
 * other and with the filtering of the next.
 *
 * libvips (sharp) offers "no filter" or libpng's adaptive heuristic, and neither gets under
 * Chromium's own best-compression PNG on photo pages, nor cheaply on gradients; png.ts uses this
 * writer there (docs/performance.md, "PNG size").
 */

/** Decoded 8-bit pixels, rows top to bottom, `channels` bytes a pixel. */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** PNG filter types (PNG spec, section 9.2). */
export const Filter = { None: 0, Sub: 1, Up: 2, Average: 3, Paeth: 4 } as const;
export type Filter = (typeof Filter)[keyof typeof Filter];

/** What an image is made of, from `analyseRows`. */
export interface RowAnalysis {
  /**
   * Per row, how much of it deflate could copy from earlier rows as it is: the least, over the
   * row's tiles (TILE_PX wide), of the share of sampled 4-byte runs that repeat (see analyseRows).
   */
  repeat: Float32Array;
  /** Share of tiles (one row high) that repeat almost nothing: photos, noise. */
  photoShare: number;
  /** Share of tiles that repeat little: photos, and gradients (which Chromium dithers). */
  naturalShare: number;
}

/** Below this repeat share a tile is a photo's (bench photos and heavy page: 0–0.07; UI and text ≥ 0.3). */
export const PHOTO_REPEAT = 0.1;
/** Below this a tile is natural content: photos and dithered gradients (gradient page 0.1–0.3). */
export const NATURAL_REPEAT = 0.3;
/** Width of the tiles a row is judged in: a photo beside text or margins is still seen as one. */
export const TILE_PX = 128;
/** Rows a tile must stay below a threshold for, one after the other, to count. */
const MIN_RUN = 16;

/** Earlier rows a row is compared with: [rows up, pixels right]. Chromium dithers gradients with an 8×8 pattern. */
const REPEAT_OFFSETS: ReadonlyArray<readonly [number, number]> = [
  [0, -1],
  [1, 0],
  [8, 0],
  [8, 8],
  [8, -8],
];
/** Bytes between two sampled 4-byte runs. */
const SAMPLE_STEP = 32;

/**
 * How much of each row deflate can copy from earlier rows as it is, without filtering: per tile of
 * TILE_PX, the share of sampled 4-byte runs equal to the same bytes one row up, eight rows up, or
 * eight rows up and eight pixels to either side (Chromium's gradient dither repeats every 8 rows;
 * a diagonal gradient's colours move one pixel a row). Flat colour, text and UI repeat a lot,
 * photos nothing.
 */
export function analyseRows(px: Pixels): RowAnalysis {
  const { data, width, height, channels } = px;
  const stride = width * channels;
  const tileBytes = TILE_PX * channels;
  const tiles = Math.ceil(width / TILE_PX);
  const same = new Uint16Array(tiles);
  const samples = new Uint16Array(tiles);
  const best = new Float32Array(tiles);
  const repeat = new Float32Array(height);
  // Per tile column, how many rows in a row the tile has been a photo's / natural: only runs of
  // MIN_RUN rows count (a line of dense text, or the first rows of a dithered gradient, are not a photo).
  const photoRun = new Uint32Array(tiles);
  const naturalRun = new Uint32Array(tiles);
  let photo = 0;
  let natural = 0;
  const endRun = (run: Uint32Array, t: number): number => {
    const rows = run[t]! >= MIN_RUN ? run[t]! : 0;
    run[t] = 0;
    return rows;
  };
  repeat[0] = 1;
  for (let y = 1; y < height; y++) {
    const row = y * stride;
    // A tile too narrow to sample (an image a few pixels wide) counts as repeating.
    best.fill(stride < 4 + 2 * SAMPLE_STEP ? 1 : 0);
    for (const [up, right] of REPEAT_OFFSETS) {
      if (y < up || Math.abs(right) >= width) continue;
      same.fill(0);
      samples.fill(0);
      const shift = right * channels;
      const other = (y - up) * stride + shift;
      for (let i = Math.max(0, -shift), to = stride - Math.max(0, shift) - 4; i <= to; i += SAMPLE_STEP) {
        const t = (i / tileBytes) | 0;
        samples[t]!++;
        const a = row + i;
        const b = other + i;
        if (data[a] === data[b] && data[a + 1] === data[b + 1] && data[a + 2] === data[b + 2] && data[a + 3] === data[b + 3]) same[t]!++;
      }
      let settled = true;
      for (let t = 0; t < tiles; t++) {
        if (samples[t]! > 0) best[t] = Math.max(best[t]!, same[t]! / samples[t]!);
        else if (up === 0) best[t] = 1; // the last tile of a row, narrower than a sample step
        if (best[t]! < NATURAL_REPEAT) settled = false;
      }
      if (settled) break;
    }
    let least = 1;
    for (let t = 0; t < tiles; t++) {
      const share = best[t]!;
      least = Math.min(least, share);
      if (share < PHOTO_REPEAT) photoRun[t]!++;
      else photo += endRun(photoRun, t);
      if (share < NATURAL_REPEAT) naturalRun[t]!++;
      else natural += endRun(naturalRun, t);
    }
    repeat[y] = least;
  }
  for (let t = 0; t < tiles; t++) {
    photo += endRun(photoRun, t);
    natural += endRun(naturalRun, t);
  }
  const counted = tiles * Math.max(1, height - 1);
  return { repeat, photoShare: photo / counted, naturalShare: natural / counted };
}

/** Knobs of `writePng`; the defaults are what docs/performance.md ("PNG size") measured best. */
export interface WriteOptions {
  /** Rows that share one filter. */
  band: number;
  /**
   * Filters a band with natural content may get: the one whose residuals (as signed bytes) add up
   * to the least over a sample of the band's rows, libpng's heuristic; with one filter, that one.
   */
  filters: readonly Filter[];
  /** Rows in the middle of a band sampled to choose its filter. */
  sampleRows: number;
  /** Bytes between two sampled bytes of a row (odd, so that every channel is sampled). */
  sampleStep: number;
  /**
   * A band whose rows all repeat at least this much (RowAnalysis.repeat) is left unfiltered: text
   * beside a photo repeats more than the filter heuristic sees (bench pages and text with a photo
   * beside it measured best at 0.1; dithered gradients, filtered with Sub, at NATURAL_REPEAT).
   */
  filterBelow: number;
  /** zlib level of the bands left unfiltered or filtered with each filter (see LEVELS). */
  levels: Readonly<Record<Filter, number>>;
  /** Uncompressed bytes per deflate segment; each is compressed as soon as its rows are filtered, in parallel. */
  segmentBytes: number;
  /** A run of bands wanting another zlib strategy or level than its neighbours' is merged into them when shorter. */
  minSegmentRows: number;
}

/**
 * zlib levels by filter, for photos. Level 6 rather than 5 on Average bands made the heavy page
 * 0.7 % and the smooth-photo page 1.8 % smaller (both then 1 % or less under the floor's bytes at
 * level 5), for little time on grainy photos but 1.6× on the smooth page; on every band it costs
 * 2–4× level 5 on dithered and smooth rows (long matches everywhere). png.ts's gradient setting
 * uses level 4.
 */
export const LEVELS: Readonly<Record<Filter, number>> = { 0: 5, 1: 5, 2: 5, 3: 6, 4: 5 };

export const DEFAULT_WRITE_OPTIONS: WriteOptions = {
  band: 16,
  filters: [Filter.None, Filter.Sub, Filter.Up, Filter.Average, Filter.Paeth],
  sampleRows: 8,
  sampleStep: 7,
  filterBelow: PHOTO_REPEAT,
  levels: LEVELS,
  segmentBytes: 1024 * 1024,
  minSegmentRows: 64,
};

/**
 * The PNG of `px` (8-bit grey, grey+alpha, RGB or RGBA), pixel for pixel. Bands of rows that
 * repeat earlier rows are left unfiltered; every other band gets the filter of o.filters whose
 * residuals are smallest on a sample of its rows.
 */
export async function writePng(px: Pixels, analysis: RowAnalysis, options: Partial<WriteOptions> = {}): Promise<Buffer> {
  const o = { ...DEFAULT_WRITE_OPTIONS, ...options };
  const { width, height, channels } = px;
  const rowBytes = width * channels + 1;
  const bandFilters: Filter[] = [];
  for (let y0 = 0; y0 < height; y0 += o.band) {
    const y1 = Math.min(height, y0 + o.band);
    let least = 1;
    for (let y = y0; y < y1; y++) least = Math.min(least, analysis.repeat[y]!);
    bandFilters.push(least >= o.filterBelow ? Filter.None : bestFilter(px, y0, y1, o));
  }
  const filtered = Buffer.allocUnsafe(rowBytes * height);
  const parts: Array<Promise<Buffer>> = [];
  let adler = 1;
  let y = 0;
  for (const segment of segmentsOf(bandFilters, o, height, rowBytes)) {
    const at = y * rowBytes;
    for (const end = y + segment.rows; y < end; y++) filterRow(px, y, bandFilters[(y / o.band) | 0]!, filtered, y * rowBytes);
    const input = filtered.subarray(at, y * rowBytes);
    const zlib: ZlibOptions = {
      level: segment.level,
      strategy: segment.strategy,
      finishFlush: y === height ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      // One output buffer for the whole segment: with the default 16 KB, every 16 KB waits for
      // this thread to take it (half of the pool's time on a busy event loop).
      chunkSize: Math.max(64 * 1024, input.length),
    };
    // On libuv's thread pool, while this thread filters the next segment.
    parts.push(new Promise((resolve, reject) => deflateRaw(input, zlib, (error, out) => (error ? reject(error) : resolve(out)))));
    adler = adler32(input, adler);
    // Filtering is JavaScript on this thread: let other requests' work in between.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler);
  const segments = await Promise.all(parts);
  // One zlib stream: the segments end with a sync flush (byte-aligned, not final) but the last.
  const idat = segments.map((segment, i) => [...(i === 0 ? [ZLIB_HEADER] : []), segment, ...(i === segments.length - 1 ? [checksum] : [])]);
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', [header(px)]), ...idat.map((parts) => chunk('IDAT', parts)), chunk('IEND', [])]);
}

/** Rows compressed as one raw deflate segment. */
interface Segment {
  rows: number;
  strategy: number;
  level: number;
}

/**
 * Runs of bands of one zlib strategy and level, cut into segments of about o.segmentBytes.
 * Z_FILTERED (no matches of 5 bytes or less) for bands filtered with Up or Paeth (smooth photos),
 * zlib's default strategy for the others (UI, text, dithered gradients, grainy photos): each
 * measured best on its kind, the other 2–4 % worse. A run shorter than o.minSegmentRows joins its
 * neighbour (a segment starts without the previous one's window).
 */
function segmentsOf(bandFilters: readonly Filter[], o: WriteOptions, height: number, rowBytes: number): Segment[] {
  const runs: Segment[] = [];
  bandFilters.forEach((filter, b) => {
    const rows = Math.min(o.band, height - b * o.band);
    const strategy = filter === Filter.Up || filter === Filter.Paeth ? constants.Z_FILTERED : constants.Z_DEFAULT_STRATEGY;
    const level = o.levels[filter];
    const last = runs[runs.length - 1];
    if (last && last.strategy === strategy && last.level === level) last.rows += rows;
    else runs.push({ rows, strategy, level });
  });
  const merged: Segment[] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && (run.rows < o.minSegmentRows || (last.strategy === run.strategy && last.level === run.level))) last.rows += run.rows;
    else if (last && last.rows < o.minSegmentRows) merged[merged.length - 1] = { ...run, rows: last.rows + run.rows };
    else merged.push({ ...run });
  }
  return merged.flatMap((run) => {
    const count = Math.max(1, Math.min(run.rows, Math.round((run.rows * rowBytes) / o.segmentBytes)));
    const per = Math.ceil(run.rows / count);
    return Array.from({ length: Math.ceil(run.rows / per) }, (_, i) => ({ ...run, rows: Math.min(per, run.rows - i * per) }));
  });
}

/**
 * The filter among o.filters whose residuals, each taken as a signed byte, add up to the least on
 * o.sampleRows rows in the middle of the band, every o.sampleStep-th byte: libpng's heuristic, on a
 * sample, all filters in one pass.
 */
function bestFilter(px: Pixels, y0: number, y1: number, o: WriteOptions): Filter {
  if (o.filters.length === 1) return o.filters[0]!;
  const { data, channels: bpp } = px;
  const stride = px.width * bpp;
  const rows = Math.min(o.sampleRows, y1 - y0);
  const start = Math.max(1, y0 + ((y1 - y0 - rows) >> 1));
  const magnitude = (v: number) => ((v & 255) < 128 ? v & 255 : 256 - (v & 255));
  let none = 0;
  let sub = 0;
  let up = 0;
  let average = 0;
  let paeth = 0;
  for (let y = start; y < Math.min(px.height, start + rows); y++) {
    const row = y * stride;
    const above = row - stride;
    for (let i = bpp; i < stride; i += o.sampleStep) {
      const x = data[row + i]!;
      const a = data[row + i - bpp]!;
      const b = data[above + i]!;
      const c = data[above + i - bpp]!;
      none += magnitude(x);
      sub += magnitude(x - a);
      up += magnitude(x - b);
      average += magnitude(x - ((a + b) >> 1));
      paeth += magnitude(x - paethPredictor(a, b, c));
    }
  }
  const sums = [none, sub, up, average, paeth];
  let best = o.filters[0] ?? Filter.None;
  for (const filter of o.filters) if (sums[filter]! < sums[best]!) best = filter;
  return best;
}

/** The PNG spec's Paeth predictor (9.4). */
function paethPredictor(a: number, b: number, c: number): number {
  const pa = Math.abs(b - c);
  const pb = Math.abs(a - c);
  const pc = Math.abs(a + b - c - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Row y of px with filter type `filter` at out[at] (its filter byte) and after. */
export function filterRow(px: Pixels, y: number, filter: Filter, out: Buffer, at: number): void {
  const { data } = px;
  const bpp = px.channels;
  const stride = px.width * bpp;
  const row = y * stride;
  const up = row - stride;
  const d = at + 1;
  // On the first row, Up is None and Average and Paeth predict from the left pixel only.
  const type = y === 0 && filter === Filter.Up ? Filter.None : filter;
  out[at] = type;
  switch (type) {
    case Filter.None:
      data.copy(out, d, row, row + stride);
      return;
    case Filter.Sub:
      for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
      for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - data[row + i - bpp]!) & 255;
      return;
    case Filter.Up:
      for (let i = 0; i < stride; i++) out[d + i] = (data[row + i]! - data[up + i]!) & 255;
      return;
    case Filter.Average:
      if (y === 0) {
        for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
        for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - (data[row + i - bpp]! >> 1)) & 255;
        return;
      }
      for (let i = 0; i < bpp; i++) out[d + i] = (data[row + i]! - (data[up + i]! >> 1)) & 255;
      for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - ((data[row + i - bpp]! + data[up + i]!) >> 1)) & 255;
      return;
    case Filter.Paeth:
      if (y === 0) {
        for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
        for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - data[row + i - bpp]!) & 255;
        return;
      }
      for (let i = 0; i < bpp; i++) out[d + i] = (data[row + i]! - data[up + i]!) & 255;
      for (let i = bpp; i < stride; i++) {
        const a = data[row + i - bpp]!;
        const b = data[up + i]!;
        const c = data[up + i - bpp]!;
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - c - c);
        out[d + i] = (data[row + i]! - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
  }
}

/** zlib header: deflate, 32 KiB window, default compression (RFC 1950). */
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);

/** Adler-32 (RFC 1950) of buf, or of what came before (its Adler-32: `previous`) and buf. */
export function adler32(buf: Uint8Array, previous = 1): number {
  let a = previous & 0xffff;
  let b = previous >>> 16;
  const n = buf.length;
  for (let i = 0; i < n;) {
    // Blocks of 2 KB keep a and b under 2^31, as small integers V8 adds fastest; four bytes a step.
    const end = Math.min(n, i + 2048);
    for (const end4 = end - 3; i < end4; i += 4) {
      const x0 = buf[i]!;
      const x1 = buf[i + 1]!;
      const x2 = buf[i + 2]!;
      const x3 = buf[i + 3]!;
      b += 4 * a + 4 * x0 + 3 * x1 + 2 * x2 + x3;
      a += x0 + x1 + x2 + x3;
    }
    for (; i < end; i++) {
      a += buf[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const COLOUR_TYPE: Record<number, number> = { 1: 0, 2: 4, 3: 2, 4: 6 };

function header(px: Pixels): Buffer {
  const colourType = COLOUR_TYPE[px.channels];
  if (colourType === undefined) throw new Error(`PNG: ${px.channels} channels`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(px.width, 0);
  ihdr.writeUInt32BE(px.height, 4);
  ihdr[8] = 8; // bit depth; compression, filter method and interlace stay 0
  ihdr[9] = colourType;
  return ihdr;
}

/** A PNG chunk whose data is `parts` one after the other. */
function chunk(type: string, parts: readonly Buffer[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const out = Buffer.allocUnsafe(12 + length);
  out.writeUInt32BE(length, 0);
  out.write(type, 4, 'latin1');
  let at = 8;
  for (const part of parts) at += part.copy(out, at);
  out.writeUInt32BE(crc32(out.subarray(4, at)), at);
  return out;
}
