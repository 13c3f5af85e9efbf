import type { FastifyInstance } from 'fastify';
import { DEVICES } from '../../options/devices.js';

/** GET /v1/devices: the names viewport_device accepts and what each sets. Public, like the docs. */
export function deviceRoutes(app: FastifyInstance): void {
  const body = { devices: [...DEVICES.values()] };
  app.get('/v1/devices', async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(body));
}
