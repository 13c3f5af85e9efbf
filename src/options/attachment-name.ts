// Control characters, path separators: a download name must never be a path.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f/\\]/;

export function isValidAttachmentName(name: string): boolean {
  return name.trim() !== '' && !FORBIDDEN.test(name) && name !== '.' && name !== '..';
}

/** Appends the format's extension unless the name already ends with it. */
export function withExtension(name: string, extension: string): string {
  return name.toLowerCase().endsWith(`.${extension}`) ? name : `${name}.${extension}`;
}
