import { ToolCaptureError, type CaptureForTool } from './tool-capture.js';

/** Captures through a Shutter server's POST /v1/take with an API key (`shutter mcp` with SHUTTER_URL and SHUTTER_API_KEY). */
export function remoteCapture(baseUrl: string, apiKey: string, fetchImpl: typeof fetch = fetch): CaptureForTool {
  const endpoint = new URL('/v1/take', baseUrl).toString();
  return async (params) => {
    const response = await fetchImpl(endpoint, {
      method: 'POST',
      headers: { apikey: apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.ok) {
      let error: { code?: string; message?: string; details?: Array<{ parameter: string; message: string }> } = {};
      try {
        error = (JSON.parse(body.toString('utf8')) as { error?: typeof error }).error ?? {};
      } catch {
        // Not Shutter's JSON (a proxy's page): the status says enough.
      }
      const details = (error.details ?? []).map((d) => `${d.parameter}: ${d.message}`);
      throw new ToolCaptureError(error.code ?? `http_${response.status}`, [error.message ?? response.statusText, ...details].join('; '));
    }
    const warnings = response.headers.get('x-shutter-warning');
    return {
      body,
      contentType: (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim(),
      warnings: warnings ? warnings.split(',') : [],
    };
  };
}
