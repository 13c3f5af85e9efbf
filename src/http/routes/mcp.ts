import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { localCapture } from '../../mcp/local-capture.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import type { AppDeps } from '../app.js';
import { requireApiKey } from '../auth.js';
import { parseContextOf } from '../parse-context.js';
import { absoluteUrl } from '../upload.js';

/**
 * POST /mcp: the MCP tools over Streamable HTTP (DESIGN.md §5.2), stateless: each POST carries its
 * JSON-RPC messages and gets the answer as JSON. Authenticated, rate-limited and charged like
 * /v1/take: every tool call that captures goes through the same take use case for the caller.
 */
export function mcpRoutes(app: FastifyInstance, deps: AppDeps): void {
  const context = parseContextOf(deps);
  app.post('/mcp', { preHandler: requireApiKey(deps.accounts) }, async (request, reply) => {
    const capture = localCapture(deps.take, context, {
      caller: request.caller!,
      requestId: request.id,
      // The answer is written by the transport: quota headers go on it while it is not sent yet.
      onCharged: (headers) => {
        if (!reply.raw.headersSent) for (const [name, value] of Object.entries(headers)) reply.raw.setHeader(name, value);
      },
      linkOf: (stored) => absoluteUrl(request, deps.publicUrl, stored),
      log: request.log,
    });
    const server = createMcpServer(capture, deps.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    reply.raw.setHeader('cache-control', 'no-store');
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  const notHere = async () => {
    throw new AppError('method_not_allowed', 'this MCP server is stateless: use POST /mcp', { headers: { allow: 'POST' } });
  };
  app.get('/mcp', { exposeHeadRoute: false }, notHere);
  app.delete('/mcp', notHere);
}
