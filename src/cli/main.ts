import { ConfigError } from '../config/load.js';
import { accounts } from './accounts.js';
import { keys } from './keys.js';
import { serve } from './serve.js';
import { take } from './take.js';

const USAGE = `usage: shutter <command>
  serve                               run the HTTP service (SHUTTER_* variables configure it)
  take <url|file.html> [-o file] [--option value …]
                                      capture once without a server, e.g. --format jpg --full_page
  accounts create --email E [--plan P]
                                      create an account and its first key (the key alone on the last line)
  accounts list                       list accounts, one per line
  accounts set-plan --email E --plan P
                                      move an account to another plan
  keys create [--email E] [--name N]  create an API key and print it once (last line)
  keys list [--email E]               list keys, one per line, id first
  keys revoke <id>                    revoke a key
  keys reset [--email E] [--name N]   revoke a key and print its replacement once (last line)
Without --email, keys belong to the operator account (plan scale).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined:
      await serve();
      return -1;
    case 'take':
      return take(rest);
    case 'keys':
      return keys(rest);
    case 'accounts':
      return accounts(rest);
    default:
      console.error(USAGE);
      return command === 'help' || command === '--help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof ConfigError ? `shutter: ${error.message}` : error);
    process.exit(1);
  },
);
