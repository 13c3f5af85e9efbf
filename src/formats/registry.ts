import type { FormatDescriptor } from './format-descriptor.js';

const image = { kind: 'image', shortTimeCap: false } as const;

/**
 * Every output format, in the order the docs list them: the one table. It is data only; how a
 * format is rendered lives in the capture layer (src/capture/render/renderers.ts), which the
 * compiler makes name a renderer for every format here.
 */
export const OUTPUT_FORMATS = [
  { ...image, name: 'png', aliases: [], contentType: 'image/png', extension: 'png', lossy: false, transparency: true },
  { ...image, name: 'jpg', aliases: ['jpeg'], contentType: 'image/jpeg', extension: 'jpg', lossy: true, transparency: false },
  { ...image, name: 'webp', aliases: [], contentType: 'image/webp', extension: 'webp', lossy: true, transparency: true },
  { ...image, name: 'avif', aliases: [], contentType: 'image/avif', extension: 'avif', lossy: true, transparency: false },
  { ...image, name: 'gif', aliases: [], contentType: 'image/gif', extension: 'gif', lossy: false, transparency: false },
  {
    name: 'pdf',
    aliases: [],
    contentType: 'application/pdf',
    extension: 'pdf',
    kind: 'document',
    lossy: false,
    transparency: false,
    shortTimeCap: true,
  },
  {
    name: 'markdown',
    aliases: ['md'],
    contentType: 'text/markdown; charset=utf-8',
    extension: 'md',
    kind: 'text',
    lossy: false,
    transparency: false,
    shortTimeCap: true,
  },
  {
    name: 'html',
    aliases: [],
    contentType: 'text/html; charset=utf-8',
    extension: 'html',
    kind: 'text',
    lossy: false,
    transparency: false,
    shortTimeCap: true,
  },
  // Made by /v1/animate only (DESIGN.md §5.3), like its animated gif; /v1/take does not offer them.
  {
    name: 'mp4',
    aliases: [],
    contentType: 'video/mp4',
    extension: 'mp4',
    kind: 'video',
    lossy: true,
    transparency: false,
    shortTimeCap: false,
  },
  {
    name: 'webm',
    aliases: [],
    contentType: 'video/webm',
    extension: 'webm',
    kind: 'video',
    lossy: true,
    transparency: false,
    shortTimeCap: false,
  },
] as const satisfies readonly FormatDescriptor[];

export type Format = (typeof OUTPUT_FORMATS)[number]['name'];

/** The formats only an animation makes. */
export type VideoFormat = Extract<(typeof OUTPUT_FORMATS)[number], { kind: 'video' }>['name'];

/** The formats of /v1/take: every one but the videos. */
export type TakeFormat = Exclude<Format, VideoFormat>;

const TAKE_OUTPUT_FORMATS = OUTPUT_FORMATS.filter((f) => f.kind !== 'video');

/** /v1/take's names, as a non-empty tuple for the options schema's enum. */
export const FORMATS = TAKE_OUTPUT_FORMATS.map((f) => f.name) as unknown as readonly [TakeFormat, ...TakeFormat[]];

/** What /v1/animate makes: the videos, and gif (animated). */
export const ANIMATION_FORMATS = ['mp4', 'webm', 'gif'] as const satisfies readonly Format[];
export type AnimationFormat = (typeof ANIMATION_FORMATS)[number];

/** Other accepted names → the format. */
export const FORMAT_ALIASES: Readonly<Record<string, TakeFormat>> = Object.fromEntries(
  TAKE_OUTPUT_FORMATS.flatMap((f) => f.aliases.map((alias) => [alias, f.name])),
);

const byName = new Map<string, FormatDescriptor<Format>>(OUTPUT_FORMATS.map((f) => [f.name, f]));

/** The descriptor of a format. */
export function formatOf(name: Format): FormatDescriptor<Format> {
  return byName.get(name)!;
}

/** The names as the docs show them: `png, jpg (alias jpeg), …`. */
export const FORMAT_NAMES_TEXT = TAKE_OUTPUT_FORMATS.map((f) =>
  f.aliases.length ? `${f.name} (alias ${(f.aliases as readonly string[]).join(', ')})` : f.name,
).join(', ');

/** Among /v1/take's formats: the rules of take parameters (an animation has its own, options/parameters/animate.ts). */
const namesWhere = (test: (f: FormatDescriptor<Format>) => boolean): readonly Format[] =>
  TAKE_OUTPUT_FORMATS.filter((f) => test(f)).map((f) => f.name);

/** Formats `quality` applies to. */
export const QUALITY_FORMATS = namesWhere((f) => f.lossy);

/** Formats that hold transparency (omit_background). */
export const TRANSPARENT_FORMATS = namesWhere((f) => f.transparency);

/** Formats whose capture time is capped at 12 s (as is any html input). */
export const SHORT_CAP_FORMATS = namesWhere((f) => f.shortTimeCap);

/** Formats whose output is pixels (clip, resizing and the pixel budget apply). */
export const IMAGE_FORMATS = namesWhere((f) => f.kind === 'image');

/** Formats whose output is the page's text (markdown, html): main_content applies to them. */
export const TEXT_FORMATS = namesWhere((f) => f.kind === 'text');

/** Formats rendered from the screen, not printed (screen media and element selection apply): all but pdf. */
export const SCREEN_FORMATS = namesWhere((f) => f.kind !== 'document');
