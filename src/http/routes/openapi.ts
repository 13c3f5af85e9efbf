import { defineRoute } from '../route.js';

/** GET /openapi.json, public like the docs it mirrors; `document` builds it on the first request, once. */
export const openApiRoutes = [
  defineRoute<{ document: () => Promise<Record<string, unknown>> }>({
    method: 'GET',
    url: '/openapi.json',
    auth: 'none',
    handler: (deps) => async () => deps.document(),
  }),
];
