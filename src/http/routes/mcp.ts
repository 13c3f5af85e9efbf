import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppError } from '../../errors/app-error.js';
import { localCapture } from '../../mcp/local-capture.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import type { ParseContext } from '../../options/parse-take-options.js';
import type { TakeCapture } from '../../take/take-capture.js';
import { ERROR_RESPONSES, jsonObject } from '../api-schemas.js';
import { defineRoute } from '../route.js';
import { absoluteUrl } from '../upload.js';

/** What POST /mcp needs: the take use case every tool captures through, how options parse, and the version it names. */
export interface McpDeps {
  take: TakeCapture;
  parse: ParseContext;
  publicUrl: string | undefined;
  version: string;
}

/** Stateless: no server-initiated stream to open (GET) and no session to end (DELETE). */
const notHere = () => async () => {
  throw new AppError('method_not_allowed', 'this MCP server is stateless: use POST /mcp', { headers: { allow: 'POST' } });
};

/**
 * POST /mcp: the MCP tools over Streamable HTTP (DESIGN.md §5.2), stateless: each POST carries its
 * JSON-RPC messages and gets the answer as JSON. Authenticated, rate-limited and charged like
 * /v1/take: every tool call that captures goes through the same take use case for the caller.
 */
export const mcpRoutes = [
  defineRoute<McpDeps>({
    method: 'POST',
    url: '/mcp',
    auth: 'key',
    schema: () => ({
      summary: 'MCP server (Streamable HTTP) for agents',
      description:
        'JSON-RPC messages of the Model Context Protocol: tools take_screenshot, get_markdown, get_pdf and list_devices (docs/agents.md). ' +
        'Each tool call that captures is charged like one /v1/take.',
      body: jsonObject('A JSON-RPC 2.0 message or batch'),
      response: { 200: jsonObject('The JSON-RPC answer'), 202: { description: 'A notification was accepted' }, ...ERROR_RESPONSES },
    }),
    handler: (deps) => async (request, reply) => {
      const capture = localCapture(deps.take, deps.parse, {
        caller: request.caller!,
        requestId: request.id,
        // The transport writes the answer: quota headers go on it while it is not sent yet.
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
    },
  }),
  defineRoute<McpDeps>({ method: 'GET', url: '/mcp', auth: 'none', exposeHeadRoute: false, handler: notHere }),
  defineRoute<McpDeps>({ method: 'DELETE', url: '/mcp', auth: 'none', handler: notHere }),
];
