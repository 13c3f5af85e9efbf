import { ConfigError } from '../errors/config-error.js';
import { accounts } from './accounts.js';
import { keys } from './keys.js';
import { serve } from './serve.js';
import { take } from './take.js';
import { parseCommandLine, UsageError } from './args.js';

const USAGE = `usage: shutter <command>
  serve [--role all|worker]           run the service (SHUTTER_* variables configure it); worker: jobs only,
                                      with /healthz, /readyz and /metrics
  take <url|file.html> [-o file] [--option value …]
                                      capture once without a server, e.g. --format jpg --full_page
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

/** Commands that run to an exit code; `serve` is not one: it runs until a signal stops it. */
const COMMANDS: Record<string, (argv: readonly string[]) => Promise<number>> = { take, keys, accounts };

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
    return serve(role as 'all' | 'worker' | undefined);
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
