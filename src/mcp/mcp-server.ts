import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEVICES } from '../options/devices.js';
import { fitImage } from './fit-image.js';
import { ToolCaptureError, type CaptureForTool } from './tool-capture.js';
import { DEFAULT_MAX_EDGE, TOOL_PARAMETERS, toolInputSchema } from './tool-inputs.js';

const SCREENSHOT_FORMATS = ['png', 'jpg', 'webp'];

/** Built on the first tools/list, not when the server starts: converting the options schema is not free. */
const buildTools = () => [
  {
    name: 'take_screenshot',
    description:
      'Screenshot of a web page (url) or of your own HTML (html) in real Chromium. Returns the image; a full page taller than ' +
      'max_edge comes back as several images, top to bottom.',
    inputSchema: toolInputSchema(TOOL_PARAMETERS.take_screenshot, {
      format: { type: 'string', enum: SCREENSHOT_FORMATS, default: 'png', description: 'Image format.' },
      max_edge: {
        type: 'integer',
        minimum: 256,
        maximum: 7680,
        default: DEFAULT_MAX_EDGE,
        description: 'Longest edge of each returned image, in px; larger captures are scaled down (and tall pages cut into slices).',
      },
    }),
  },
  {
    name: 'get_markdown',
    description:
      "A web page's content as Markdown, read from the rendered page. With main_content (the default) only the article or main body.",
    inputSchema: toolInputSchema(TOOL_PARAMETERS.get_markdown, {
      main_content: {
        type: 'boolean',
        default: true,
        description: 'Only the main content (article, main body), without navigation, footers, sidebars, comments or banners.',
      },
    }),
  },
  {
    name: 'get_pdf',
    description: 'A web page printed to PDF by Chromium, returned as an embedded PDF resource.',
    inputSchema: toolInputSchema(TOOL_PARAMETERS.get_pdf),
  },
  {
    name: 'list_devices',
    description: 'The device names viewport_device accepts, with their viewport, pixel ratio and user agent.',
    inputSchema: { type: 'object' as const, properties: {} },
  },
];

let tools: ReturnType<typeof buildTools> | undefined;

/** Only the parameters a tool lists pass to the capture: an agent cannot reach options the tool does not offer. */
function pick(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
}

const errorResult = (code: string, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${code}: ${message}` }],
});

/**
 * The Shutter MCP server (DESIGN.md §5.2): take_screenshot, get_markdown, get_pdf and list_devices
 * over whatever makes captures (`capture`). One instance serves one connection.
 */
export function createMcpServer(capture: CaptureForTool, version: string): Server {
  const server = new Server({ name: 'shutter', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (tools ??= buildTools()) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      switch (request.params.name) {
        case 'take_screenshot':
          return await screenshot(capture, args);
        case 'get_markdown': {
          const params = { main_content: true, ...pick(args, TOOL_PARAMETERS.get_markdown), format: 'markdown' };
          const shot = await capture(params);
          return { content: [{ type: 'text', text: shot.body.toString('utf8') }], ...warnings(shot.warnings) };
        }
        case 'get_pdf': {
          const shot = await capture({ ...pick(args, TOOL_PARAMETERS.get_pdf), format: 'pdf' });
          const uri = `shutter://capture/${Date.now().toString(36)}.pdf`;
          return { content: [{ type: 'resource', resource: { uri, mimeType: 'application/pdf', blob: shot.body.toString('base64') } }] };
        }
        case 'list_devices':
          return { content: [{ type: 'text', text: JSON.stringify({ devices: [...DEVICES.values()] }) }] };
        default:
          return errorResult('not_found', `no tool ${request.params.name}`);
      }
    } catch (error) {
      if (error instanceof ToolCaptureError) return errorResult(error.code, error.message);
      throw error;
    }
  });
  return server;
}

async function screenshot(capture: CaptureForTool, args: Record<string, unknown>): Promise<CallToolResult> {
  const maxEdge = args.max_edge === undefined ? DEFAULT_MAX_EDGE : Number(args.max_edge);
  if (!Number.isInteger(maxEdge) || maxEdge < 256 || maxEdge > 7680) {
    return errorResult('invalid_parameter', 'max_edge: must be an integer from 256 to 7680');
  }
  if (args.format !== undefined && !SCREENSHOT_FORMATS.includes(String(args.format))) {
    return errorResult('invalid_parameter', `format: must be one of ${SCREENSHOT_FORMATS.join(', ')}`);
  }
  const shot = await capture(pick(args, TOOL_PARAMETERS.take_screenshot));
  const images = await fitImage(shot.body, shot.contentType, maxEdge);
  return {
    content: images.map((image) => ({ type: 'image' as const, data: image.data.toString('base64'), mimeType: image.mimeType })),
    ...warnings(shot.warnings),
  };
}

/** Warnings travel in the result's _meta, so an agent that cares can read them. */
const warnings = (list: string[]) => (list.length ? { _meta: { warnings: list } } : {});
