import { avif } from './avif.js';
import { gif } from './gif.js';
import { html } from './html.js';
import { jpg } from './jpg.js';
import { markdown } from './markdown.js';
import type { OutputFormat } from './output-format.js';
import { pdf } from './pdf.js';
import { png } from './png.js';
import { webp } from './webp.js';

/**
 * Every output format, in the order the docs list them: the one list. A new format is one file
 * (see png.ts, pdf.ts) added here.
 */
export const OUTPUT_FORMATS = [png, jpg, webp, avif, gif, pdf, markdown, html] as const;

export type Format = (typeof OUTPUT_FORMATS)[number]['name'];

/** The names, as a non-empty tuple for the options schema's enum. */
export const FORMATS = OUTPUT_FORMATS.map((f) => f.name) as unknown as readonly [Format, ...Format[]];

/** Other accepted names → the format. */
export const FORMAT_ALIASES: Readonly<Record<string, Format>> = Object.fromEntries(
  OUTPUT_FORMATS.flatMap((f) => f.aliases.map((alias) => [alias, f.name])),
);

const byName = new Map<string, OutputFormat<Format>>(OUTPUT_FORMATS.map((f) => [f.name, f]));

/** The record of a format. */
export function formatOf(name: Format): OutputFormat<Format> {
  return byName.get(name)!;
}

/** The names as the docs show them: `png, jpg (alias jpeg), …`. */
export const FORMAT_NAMES_TEXT = OUTPUT_FORMATS.map((f) => (f.aliases.length ? `${f.name} (alias ${f.aliases.join(', ')})` : f.name)).join(
  ', ',
);

/** Formats `quality` applies to. */
export const QUALITY_FORMATS: readonly Format[] = OUTPUT_FORMATS.filter((f) => f.lossy).map((f) => f.name);

/** Formats whose capture time is capped at 12 s (as is any html input). */
export const SHORT_CAP_FORMATS: readonly Format[] = OUTPUT_FORMATS.filter((f) => f.shortTimeCap).map((f) => f.name);

/** Formats whose output is pixels (clip, resizing and the pixel budget apply). */
export const IMAGE_FORMATS: readonly Format[] = OUTPUT_FORMATS.filter((f) => f.kind === 'image').map((f) => f.name);

/** Formats rendered from the screen, not printed (screen media and element selection apply): all but pdf. */
export const SCREEN_FORMATS: readonly Format[] = OUTPUT_FORMATS.filter((f) => f.kind !== 'document').map((f) => f.name);
