import { formatOf, type Format } from '../formats/registry.js';

// C0 and C1 control characters, path separators: a download name must never be a path.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f/\\]/;

export function isValidAttachmentName(name: string): boolean {
  // A lone surrogate cannot be encoded into a header (RFC 6266 filename*).
  return name.trim() !== '' && name.isWellFormed() && !FORBIDDEN.test(name) && name !== '.' && name !== '..';
}

/** Appends the format's extension unless the name already ends with it. */
export function withExtension(name: string, extension: string): string {
  return name.toLowerCase().endsWith(`.${extension}`) ? name : `${name}.${extension}`;
}

/** The download name a capture was asked for (attachment_name with the format's extension), or undefined. */
export function downloadNameOf(attachmentName: string | undefined, format: Format): string | undefined {
  return attachmentName === undefined ? undefined : withExtension(attachmentName, formatOf(format).extension);
}
