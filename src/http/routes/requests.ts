import type { RequestLog } from '../../requests/request-log.js';
import { AppError } from '../../errors/app-error.js';
import { ERROR_RESPONSES, jsonObject } from '../api-schemas.js';
import { defineRoute } from '../route.js';

/** GET /v1/requests/{request_id}: the debug bundle of one of the caller's account's debug=1 captures (24 h). */
export const requestRoutes = [
  defineRoute<{ requests: Pick<RequestLog, 'bundle'> }>({
    method: 'GET',
    url: '/v1/requests/:request_id',
    auth: 'key',
    schema: () => ({
      summary: 'The debug bundle of a capture made with debug=1 (24 h)',
      params: { type: 'object', properties: { request_id: { type: 'string' } }, required: ['request_id'] },
      response: { 200: jsonObject('The bundle'), ...ERROR_RESPONSES },
    }),
    handler: (deps) => async (request, reply) => {
      const { request_id: id } = request.params as { request_id: string };
      const bundle = await deps.requests.bundle(request.caller!.account.id, id.slice(0, 200));
      // Another account's request, one without debug=1 and an expired bundle look the same.
      if (bundle === undefined) throw new AppError('not_found', 'no debug bundle for this request id: it needs debug=1 and lasts 24 hours');
      return reply.header('cache-control', 'no-store').send(bundle);
    },
  }),
];
