import { DEVICES } from '../../options/devices.js';
import { jsonObject } from '../api-schemas.js';
import { defineRoute } from '../route.js';

const body = { devices: [...DEVICES.values()] };

/** GET /v1/devices: the names viewport_device accepts and what each sets. Public, like the docs. */
export const deviceRoutes = [
  defineRoute({
    method: 'GET',
    url: '/v1/devices',
    auth: 'none',
    schema: () => ({ summary: 'Device names for viewport_device', response: { 200: jsonObject('Devices') } }),
    handler: () => async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(body),
  }),
];
