import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/usage/period.js';
import { startService, type Service } from './harness.js';

/**
 * The MCP client configurations printed in docs/agents.md, read from the page and started the way
 * Claude Desktop and Cursor start them: `command` + `args` in a folder of the app's own with the
 * SDK's default environment plus `env` (what both apps do, on the same SDK), or `url` + `headers`.
 * Needs the built server (`make build`), as `bin/shutter.js` does.
 */
type ServerEntry = { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> };

const ROOT = join(import.meta.dirname, '../..');
let service: Service;
let base: string;
let key: string;
let accountId: string;
let entries: ServerEntry[];

/** The page's JSON examples, with its placeholders made real. */
async function documentedEntries(): Promise<ServerEntry[]> {
  const page = await readFile(join(ROOT, 'docs/agents.md'), 'utf8');
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes('mcpServers'));
  return blocks.map((block) => {
    const real = block.replaceAll('/path/to/shutter', ROOT).replaceAll('https://shutter.example.com', base).replaceAll('YOUR_KEY', key);
    return (JSON.parse(real) as { mcpServers: { shutter: ServerEntry } }).mcpServers.shutter;
  });
}

const used = () => service.accounts.limits.quota.used(accountId, periodOf(new Date()));

async function markdownOf(client: Client): Promise<string> {
  const result = (await client.callTool({
    name: 'get_markdown',
    arguments: { html: '<h1>Configured</h1><p>As the page says.</p>', main_content: false },
  })) as { isError?: boolean; content: Array<{ text?: string }> };
  expect(result.isError).toBeFalsy();
  return result.content[0]!.text!;
}

beforeAll(async () => {
  service = await startService();
  const created = await service.keys.create({ name: 'desktop' });
  key = created.key;
  accountId = created.record.accountId;
  base = await service.app.listen({ port: 0, host: '127.0.0.1' });
  entries = await documentedEntries();
});
afterAll(async () => {
  await service?.close();
});

describe('the MCP configurations in docs/agents.md', () => {
  it('has the three: remote and local programs, and the URL', () => {
    expect(entries.filter((e) => e.command && e.env?.SHUTTER_URL)).toHaveLength(1);
    expect(entries.filter((e) => e.command && !e.env)).toHaveLength(1);
    expect(entries.filter((e) => e.url)).toHaveLength(1);
  });

  for (const [label, pick] of [
    ['the program through a Shutter server (charged there)', (e: ServerEntry) => Boolean(e.command && e.env?.SHUTTER_URL)],
    ['the program on the local Chromium, started in a folder of its own', (e: ServerEntry) => Boolean(e.command && !e.env)],
  ] as const) {
    it(`${label}: tools listed, Markdown answered`, async () => {
      const entry = entries.find(pick)!;
      const cwd = await mkdtemp(join(tmpdir(), 'shutter-desktop-'));
      try {
        const client = new Client({ name: 'desktop-config', version: '1' });
        await client.connect(
          new StdioClientTransport({
            command: entry.command!,
            args: entry.args ?? [],
            env: { ...getDefaultEnvironment(), SHUTTER_LOG_LEVEL: 'silent', ...entry.env },
            cwd,
            stderr: 'pipe',
          }),
        );
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
          'get_markdown',
          'get_pdf',
          'list_devices',
          'take_screenshot',
        ]);
        const before = await used();
        expect(await markdownOf(client)).toBe('# Configured\n\nAs the page says.\n');
        expect(await used()).toBe(entry.env ? before + 1 : before);
        await client.close();
        // Its state went to the installation's data folder, not into the folder it was started in.
        expect(await readdir(cwd)).toEqual([]);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    });
  }

  it('the URL with its header (Streamable HTTP): tools listed, Markdown answered and charged', async () => {
    const entry = entries.find((e) => e.url)!;
    const client = new Client({ name: 'desktop-config', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url!), { requestInit: { headers: entry.headers ?? {} } }));
    expect((await client.listTools()).tools).toHaveLength(4);
    const before = await used();
    expect(await markdownOf(client)).toBe('# Configured\n\nAs the page says.\n');
    expect(await used()).toBe(before + 1);
    await client.close();
  });
});
