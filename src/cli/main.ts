import { ConfigError } from '../config/load.js';
import { keys } from './keys.js';
import { serve } from './serve.js';
import { take } from './take.js';

const USAGE = `usage: shutter <command>
  serve                               run the HTTP service (SHUTTER_* variables configure it)
  take <url|file.html> [-o file] [--option value …]
                                      capture once without a server, e.g. --format jpg --full_page
  keys create [--name NAME]           create an API key and print it once
  keys list | keys revoke <id>        list or revoke keys`;

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
