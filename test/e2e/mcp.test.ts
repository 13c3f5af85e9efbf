import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
import { startService, type Service } from './harness.js';

/**
 * The MCP server (DESIGN.md §5.2) with the SDK's own client, over Streamable HTTP (POST /mcp on the
 * real service, real Chromium) and over stdio (`shutter mcp`, locally and through the server).
 */
let service: Service;
let base: string;
let key: string;
let accountId: string;

const TALL = '<body style="margin:0"><div style="height:5000px;background:linear-gradient(#e11,#11e)">top</div></body>';

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; data?: string; mimeType?: string; text?: string; resource?: { mimeType?: string; blob?: string } }>;
};

async function httpClient(apiKey = key): Promise<Client> {
  const client = new Client({ name: 'shutter-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { apikey: apiKey } } }));
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

const used = () => service.accounts.limits.quota.used(accountId, periodOf(new Date()));

beforeAll(async () => {
  service = await startService();
  const created = await service.keys.create({ name: 'mcp' });
  key = created.key;
  accountId = created.record.accountId;
  base = await service.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await service?.close();
});

describe('POST /mcp (Streamable HTTP)', () => {
  it('lists the four tools, their inputs taken from the options schema', async () => {
    const client = await httpClient();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_markdown', 'get_pdf', 'list_devices', 'take_screenshot']);
    const screenshot = tools.find((t) => t.name === 'take_screenshot')!;
    expect(screenshot.inputSchema.properties).toHaveProperty('viewport_width.type', 'number');
    expect(screenshot.inputSchema.properties).toHaveProperty('viewport_width.description', expect.stringContaining('Allowed: '));
    expect(screenshot.inputSchema.properties).toHaveProperty('max_edge.default', 1568);
    await client.close();
  });

  it('take_screenshot answers the image inline, charged once', async () => {
    const client = await httpClient();
    const before = await used();
    const result = await call(client, 'take_screenshot', { html: '<h1>Hello agent</h1>', viewport_width: 800, viewport_height: 600 });
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const meta = await sharp(Buffer.from(result.content[0]!.data!, 'base64')).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 800, height: 600 });
    expect(await used()).toBe(before + 1);
    await client.close();
  });

  it('a tall full page comes back as several images, top to bottom, none over max_edge', async () => {
    const client = await httpClient();
    const result = await call(client, 'take_screenshot', { html: TALL, full_page: true, viewport_width: 1000, viewport_height: 800 });
    expect(result.isError).toBeFalsy();
    const images = await Promise.all(result.content.map((c) => sharp(Buffer.from(c.data!, 'base64')).metadata()));
    // 5000 px at 1000 px wide: slices of at most 1568 px.
    expect(images).toHaveLength(Math.ceil(5000 / 1568));
    expect(images.every((m) => m.width === 1000 && m.height! <= 1568)).toBe(true);
    expect(images.reduce((sum, m) => sum + m.height!, 0)).toBe(5000);
    // Top to bottom: the first slice is red at its top, the last blue at its bottom.
    const first = await sharp(Buffer.from(result.content[0]!.data!, 'base64'))
      .extract({ left: 500, top: 2, width: 1, height: 1 })
      .raw()
      .toBuffer();
    const lastImage = Buffer.from(result.content.at(-1)!.data!, 'base64');
    const lastHeight = images.at(-1)!.height!;
    const last = await sharp(lastImage)
      .extract({ left: 500, top: lastHeight - 3, width: 1, height: 1 })
      .raw()
      .toBuffer();
    expect(first[0]!).toBeGreaterThan(first[2]!);
    expect(last[2]!).toBeGreaterThan(last[0]!);
    const small = await call(client, 'take_screenshot', { html: TALL, full_page: true, viewport_width: 1000, max_edge: 500 });
    const smallImages = await Promise.all(small.content.map((c) => sharp(Buffer.from(c.data!, 'base64')).metadata()));
    expect(smallImages.every((m) => m.width === 500 && m.height! <= 500)).toBe(true);
    await client.close();
  });

  it('get_markdown answers text, get_pdf an embedded PDF, list_devices the devices', async () => {
    const client = await httpClient();
    const markdown = await call(client, 'get_markdown', { html: '<h1>Title</h1><p>Some <b>bold</b> words.</p>' });
    expect(markdown.content[0]).toMatchObject({ type: 'text' });
    expect(markdown.content[0]!.text).toContain('# Title');
    expect(markdown.content[0]!.text).toContain('Some **bold** words.');
    const pdf = await call(client, 'get_pdf', { html: '<p>printed</p>' });
    expect(pdf.content[0]).toMatchObject({ type: 'resource', resource: { mimeType: 'application/pdf' } });
    expect(Buffer.from(pdf.content[0]!.resource!.blob!, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const devices = await call(client, 'list_devices', {});
    expect(JSON.parse(devices.content[0]!.text!).devices.map((d: { name: string }) => d.name)).toContain('iphone_15_pro');
    await client.close();
  });

  it('a refused capture is a tool error with its code, not charged; a bad parameter names itself', async () => {
    const client = await httpClient();
    const before = await used();
    const forbidden = await call(client, 'take_screenshot', { url: 'http://10.1.2.3/' });
    expect(forbidden.isError).toBe(true);
    expect(forbidden.content[0]!.text).toMatch(/^target_forbidden: /);
    const bad = await call(client, 'take_screenshot', { html: '<p>x</p>', viewport_width: 99_999 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/^invalid_parameter: .*viewport_width/);
    expect(await used()).toBe(before);
    await client.close();
  });

  it('without a valid key the endpoint answers 401', async () => {
    const response = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    await expect(httpClient('not-a-key-of-this-server')).rejects.toThrow();
  });
});

describe('shutter mcp (stdio)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'shutter-mcp-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const stdioClient = async (env: Record<string, string>) => {
    const client = new Client({ name: 'shutter-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
        env: { ...(process.env as Record<string, string>), SHUTTER_DATA_DIR: dataDir, SHUTTER_LOG_LEVEL: 'silent', ...env },
        stderr: 'pipe',
      }),
    );
    return client;
  };

  it('on the local engine: tools listed and a screenshot taken', async () => {
    const client = await stdioClient({});
    expect((await client.listTools()).tools).toHaveLength(4);
    const result = await call(client, 'take_screenshot', {
      html: '<h1>stdio</h1>',
      viewport_width: 640,
      viewport_height: 400,
      format: 'jpg',
    });
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    expect(await sharp(Buffer.from(result.content[0]!.data!, 'base64')).metadata()).toMatchObject({ width: 640, height: 400 });
    await client.close();
  });

  it('through a Shutter server with SHUTTER_URL and SHUTTER_API_KEY: charged there; its errors as tool errors', async () => {
    const client = await stdioClient({ SHUTTER_URL: base, SHUTTER_API_KEY: key });
    const before = await used();
    const result = await call(client, 'take_screenshot', { html: '<h1>remote</h1>', viewport_width: 640, viewport_height: 400 });
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(await used()).toBe(before + 1);
    const forbidden = await call(client, 'take_screenshot', { url: 'http://10.1.2.3/' });
    expect(forbidden).toMatchObject({ isError: true });
    expect(forbidden.content[0]!.text).toMatch(/^target_forbidden: /);
    await client.close();
  });

  it('refuses arguments and half of the remote settings with exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp'], {
      env: { ...process.env, SHUTTER_URL: base, SHUTTER_API_KEY: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('SHUTTER_URL and SHUTTER_API_KEY');
  });
});
