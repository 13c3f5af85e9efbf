/** What an MCP tool gets back from one capture, wherever it was made (this process or a Shutter server). */
export interface ToolCapture {
  body: Buffer;
  contentType: string;
  /** X-Shutter-Warning values (partial_load, blank, …). */
  warnings: string[];
}

/** A refused capture, as a tool reports it: the API's error code and message. */
export class ToolCaptureError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Makes one capture from take parameters as /v1/take accepts them. The MCP server does not know
 * where: the local engine (`shutter mcp`), the take use case for an authenticated caller (`POST
 * /mcp`), or a Shutter server over HTTP (`shutter mcp` with SHUTTER_URL).
 */
export type CaptureForTool = (params: Record<string, unknown>) => Promise<ToolCapture>;
