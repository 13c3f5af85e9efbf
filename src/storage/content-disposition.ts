import { contentDisposition as header } from '../http/content-disposition.js';

/** Content-Disposition of a stored file: attachment with its name, or inline. */
export const contentDisposition = (downloadName: string | undefined) =>
  downloadName ? header('attachment', downloadName) : 'inline';
