import { loadConfig } from '../config/load.js';
import { openKeyStore } from '../service.js';
import { parseArgs } from './args.js';

/** `shutter keys create|list|revoke`: operator key management on the service's database. */
export async function keys(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { positional, options } = parseArgs(rest, { n: 'name' });
  const store = openKeyStore(loadConfig());
  try {
    switch (command) {
      case 'create': {
        const { record, key } = await store.create({ name: options.name ?? 'default' });
        console.log(key);
        console.error(`created key ${record.id} (${record.name}); it is shown only this once`);
        return 0;
      }
      case 'list':
        for (const k of await store.list()) {
          console.log(`${k.id}  ${k.prefix}…${k.last4}  ${k.name}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`);
        }
        return 0;
      case 'revoke': {
        const id = positional[0];
        if (!id) break;
        const ok = await store.revoke(id);
        console.error(ok ? `revoked ${id}` : `no active key ${id}`);
        return ok ? 0 : 1;
      }
    }
    console.error('usage: shutter keys create [--name NAME] | keys list | keys revoke <id>');
    return 2;
  } finally {
    store.close();
  }
}
