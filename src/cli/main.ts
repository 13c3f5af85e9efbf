import nodeModule from 'node:module';
import { ConfigError } from '../errors/config-error.js';
import { parseCommandLine, UsageError } from './args.js';

// Node >= 22.1 keeps the compiled code of every module loaded from here on (playwright-core's bundle
// most of all) in a cache directory (NODE_COMPILE_CACHE, default <tmpdir>/node-compile-cache), so a
// later start compiles little; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such API.
// It must run before the commands are imported, which is why they are imported only below, on use.
const compileCache = nodeModule as { enableCompileCache?: () => unknown; flushCompileCache?: () => void };
compileCache.enableCompileCache?.();

const USAGE = `usage: shutter <command>
  serve [--role all|worker]           run the service (SHUTTER_* variables configure it); worker: jobs only,
                                      with /healthz, /readyz and /metrics
  take <url|file.html> [-o file] [--option value …]
                                      capture once without a server, e.g. --format jpg --full_page
  mcp                                 the MCP server on stdio for desktop agents (docs/agents.md); SHUTTER_URL
                                      and SHUTTER_API_KEY send its captures to a Shutter server
  accounts create --email E [--plan P] [--name N]
                                      create an account and its first key (the key alone on the last line)
  accounts list                       list accounts, one per line
  accounts set-plan --email E --plan P
                                      move an account to another plan
  accounts set-password --email E     set a dashboard password, read from standard input
  accounts set-role --email E --role operator|user
                                      let an account open the dashboard's admin (/dashboard/admin), or no longer
  keys create [--email E] [--name N]  create an API key and print it once (last line)
  keys list [--email E]               list keys, one per line, id first
  keys revoke <id>                    revoke a key
  keys reset [--email E] [--name N]   revoke a key and print its replacement once (last line)
Without --email, keys belong to the operator account (plan scale).`;

/**
 * Commands that run to an exit code; `serve` is not one: it runs until a signal stops it. Each is
 * imported when run: `shutter keys list` loads no browser library, and `serve` no CLI command.
 */
const COMMANDS: Record<string, (argv: readonly string[]) => Promise<number>> = {
  take: async (argv) => (await import('./take.js')).take(argv),
  mcp: async (argv) => (await import('./mcp.js')).mcp(argv),
  keys: async (argv) => (await import('./keys.js')).keys(argv),
  accounts: async (argv) => (await import('./accounts.js')).accounts(argv),
};

async function main([command, ...rest]: string[]): Promise<void> {
  if (command === undefined || command === 'serve') {
    let role: string | undefined;
    try {
      role = parseCommandLine(rest, { role: { type: 'string' } }).values.role;
      if (role !== undefined && role !== 'all' && role !== 'worker') throw new UsageError(`--role must be all or worker, not ${role}`);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      console.error(`shutter: serve: ${error.message}\n${USAGE}`);
      process.exit(2);
    }
    const { serve } = await import('./serve.js');
    await serve(role as 'all' | 'worker' | undefined);
    // Written now, not only at exit: a server is often stopped by a signal that leaves no time for it (Node >= 22.10).
    compileCache.flushCompileCache?.();
    return;
  }
  const run = COMMANDS[command];
  if (!run) {
    const help = command === 'help' || command === '--help' || command === '-h';
    console.error(help ? USAGE : `shutter: unknown command ${command}\n${USAGE}`);
    process.exit(help ? 0 : 2);
  }
  process.exit(await run(rest));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `shutter: ${error.message}` : error);
  process.exit(1);
});
