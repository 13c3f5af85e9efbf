/**
 * RFC 6266 Content-Disposition: an ASCII `filename` for old clients and a UTF-8 `filename*`
 * when the name has anything else.
 */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const header = `${type}; filename="${ascii}"`;
  if (ascii === filename) return header;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}
