import { join } from 'node:path';
import type { ApiKeyRecord } from '../accounts/key-store.js';
import { keySigningSecret } from '../accounts/signing-secret.js';
import { loadConfig } from '../config/load.js';
import { loadSigningSecret } from '../storage/url-signer.js';
import { parseCommandLine, UsageError } from './args.js';
import { accountFor, CliRefusal, withAccounts } from './cli-accounts.js';

const USAGE = `usage: shutter keys create [--email E] [--name N]   create a key; the key alone on the last line
       shutter keys list [--email E]                one key per line, its id first
       shutter keys revoke <id>                     revoke a key
       shutter keys reset [--email E] [--name N]    revoke a key and print its replacement on the last line
       shutter keys signing-secret <id>             the key's signing secret, for signed links (access_key = the id)
Without --email, keys belong to the operator account (operator@localhost, plan scale).`;

const line = (k: ApiKeyRecord, email?: string) =>
  [k.id, `${k.prefix}…${k.last4}`, k.name, k.revokedAt ? `revoked ${k.revokedAt}` : 'active', ...(email ? [email] : [])].join('  ');

/** `shutter keys create|list|revoke|reset|signing-secret`: operator key management on the service's database. */
export async function keys(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    if (!['create', 'list', 'revoke', 'reset', 'signing-secret'].includes(command ?? ''))
      throw new UsageError(`unknown command keys ${command ?? ''}`);
    parsed = parseCommandLine(
      rest,
      { name: { type: 'string', short: 'n' }, email: { type: 'string', short: 'e' } },
      command === 'revoke' || command === 'signing-secret' ? { min: 1, max: 1, name: `the id of the key` } : { max: 0 },
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`shutter: ${error.message}\n${USAGE}`);
    return 2;
  }
  const { values: options, positionals: positional } = parsed;
  return withAccounts(async (services) => {
    switch (command) {
      case 'create': {
        const account = await accountFor(services, options.email);
        const issued = await services.keyManager.issue(account, options.name ?? 'default');
        if (!issued.ok) throw new CliRefusal(issued.message);
        console.error(
          `created key ${issued.value.record.id} (${issued.value.record.name}) for ${account.email}; it is shown only this once`,
        );
        console.log(issued.value.key);
        return 0;
      }
      case 'list': {
        if (options.email !== undefined) {
          const account = await accountFor(services, options.email);
          for (const k of await services.keys.list(account.id)) console.log(line(k));
          return 0;
        }
        const emails = new Map((await services.accounts.list()).map((a) => [a.id, a.email]));
        for (const k of await services.keys.list()) console.log(line(k, emails.get(k.accountId)));
        return 0;
      }
      case 'signing-secret': {
        const record = await services.keys.get(positional[0]!);
        if (!record || record.revokedAt) throw new CliRefusal(`no active key ${positional[0]!}`);
        const config = loadConfig();
        const master = await loadSigningSecret(config.SHUTTER_SIGNING_SECRET, join(config.SHUTTER_DATA_DIR, 'signing-secret'));
        console.log(keySigningSecret(master, record.id));
        return 0;
      }
      case 'revoke': {
        const id = positional[0]!;
        if (!(await services.keys.revoke(id))) throw new CliRefusal(`no active key ${id}`);
        console.error(`revoked ${id}`);
        return 0;
      }
      default: {
        const account = await accountFor(services, options.email);
        const issued = await services.keyManager.reset(account, { name: options.name });
        if (!issued.ok) throw new CliRefusal(issued.message);
        const { record, replaced, key } = issued.value;
        console.error(
          replaced
            ? `revoked ${replaced.id} (${replaced.prefix}…${replaced.last4}); its replacement ${record.id} (${record.name}) is shown only this once`
            : `${account.email} had no active key; created ${record.id} (${record.name}), shown only this once`,
        );
        console.log(key);
        return 0;
      }
    }
  });
}
