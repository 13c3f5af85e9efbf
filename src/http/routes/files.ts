import { createReadStream } from 'node:fs';
import { AppError } from '../../errors/app-error.js';
import type { LocalStore } from '../../storage/local-store.js';
import { contentDisposition } from '../../util/content-disposition.js';
import { defineRoute } from '../route.js';

/** GET /v1/files/<name>?expires=…&sig=…: locally stored captures; the signature is the credential. Mounted with a local store only. */
export const fileRoutes = [
  defineRoute<{ store: Pick<LocalStore, 'open'> }>({
    method: 'GET',
    url: '/v1/files/:name',
    auth: 'none',
    handler: (deps) => async (request, reply) => {
      const { name } = request.params as { name: string };
      const { expires = '', sig = '' } = request.query as Record<string, string | undefined>;
      const file = await deps.store.open(name, String(expires), String(sig));
      // One answer for every failure: a wrong name, an altered or expired link look the same.
      if (!file) throw new AppError('link_invalid', 'this link is invalid or has expired');
      return reply
        .header('content-type', file.contentType)
        .header('content-length', file.size)
        .header(
          'content-disposition',
          file.downloadName ? contentDisposition('attachment', file.downloadName) : contentDisposition('inline', name),
        )
        .header('cache-control', 'private, max-age=300')
        .send(createReadStream(file.path));
    },
  }),
];
