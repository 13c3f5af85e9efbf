import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../config/load.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { localCapture } from '../mcp/local-capture.js';
import { remoteCapture } from '../mcp/remote-capture.js';
import type { CaptureForTool } from '../mcp/tool-capture.js';
import { createLogger } from '../observability/logger.js';
import { createService, type Service } from '../service.js';
import { installRoot } from '../util/install-root.js';
import { VERSION } from '../version.js';

export const MCP_USAGE = `usage: shutter mcp
  The MCP server on standard input and output, for desktop agents (docs/agents.md).
  With SHUTTER_URL and SHUTTER_API_KEY set, captures go to that Shutter server; otherwise to a
  local Chromium, as \`shutter take\` does.`;

/** `shutter mcp`: the MCP tools over stdio until the agent closes the connection. */
export async function mcp(argv: readonly string[]): Promise<number> {
  if (argv.length > 0) {
    console.error(`shutter: mcp takes no arguments\n${MCP_USAGE}`);
    return 2;
  }
  const url = process.env.SHUTTER_URL || undefined;
  const key = process.env.SHUTTER_API_KEY || undefined;
  if ((url === undefined) !== (key === undefined)) {
    console.error('shutter: mcp needs both SHUTTER_URL and SHUTTER_API_KEY, or neither (local Chromium)');
    return 2;
  }
  let service: Service | undefined;
  let capture: CaptureForTool;
  if (url !== undefined && key !== undefined) {
    capture = remoteCapture(url, key);
  } else {
    // A desktop agent starts this program in a folder of its own choosing (`/` on macOS, not
    // writable): without SHUTTER_DATA_DIR, the installation's data folder, not ./data under it.
    const config = loadConfig({ ...process.env, SHUTTER_DATA_DIR: process.env.SHUTTER_DATA_DIR || join(installRoot(), 'data') });
    // stdout carries the protocol: every log line goes to stderr.
    const logger = createLogger(config.SHUTTER_LOG_LEVEL === 'info' ? 'warn' : config.SHUTTER_LOG_LEVEL, 'stderr');
    service = await createService(config, { logger, accounts: 'memory', store: null, runJobs: false });
    await service.start();
    capture = localCapture(service.take, { countries: [...config.SHUTTER_PROXIES.keys()].sort(), maxPixels: config.SHUTTER_MAX_PIXELS });
  }
  const server = createMcpServer(capture, VERSION);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  // The SDK's stdio transport does not watch for the end of its input: an agent that quits ends it.
  process.stdin.once('end', () => void server.close());
  await closed;
  await service?.close();
  return 0;
}
