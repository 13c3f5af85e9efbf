/** Output formats, their aliases and what each one is. */
export const FORMATS = ['png', 'jpg', 'webp', 'gif', 'pdf', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];

export const FORMAT_ALIASES: Readonly<Record<string, Format>> = { jpeg: 'jpg', md: 'markdown' };

export const IMAGE_FORMATS: readonly Format[] = ['png', 'jpg', 'webp', 'gif'];
export const QUALITY_FORMATS: readonly Format[] = ['jpg', 'webp'];

/** Formats (besides html input) whose capture time is capped at 12 s by the spec. */
export const SHORT_CAP_FORMATS: readonly Format[] = ['pdf', 'markdown'];

export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  pdf: 'application/pdf',
  markdown: 'text/markdown; charset=utf-8',
};

export const EXTENSIONS: Readonly<Record<Format, string>> = {
  png: 'png',
  jpg: 'jpg',
  webp: 'webp',
  gif: 'gif',
  pdf: 'pdf',
  markdown: 'md',
};
