import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { LocalStore } from '../../storage/local-store.js';
import type { AppDeps } from '../app.js';
import { contentDisposition } from '../../util/content-disposition.js';

/** GET /v1/files/<name>?expires=…&sig=…: locally stored captures; the signature is the credential. */
export function fileRoutes(app: FastifyInstance, deps: AppDeps): void {
  const store = deps.store;
  if (!(store instanceof LocalStore)) return;
  app.get('/v1/files/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const { expires = '', sig = '' } = request.query as Record<string, string | undefined>;
    const file = await store.open(name, String(expires), String(sig));
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
  });
}
