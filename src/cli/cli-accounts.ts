import type { Account } from '../accounts/account-store.js';
import type { AccountServices } from '../accounts/services.js';
import { loadConfig } from '../config/load.js';
import { openAccountServices } from '../accounts/open.js';

/** Thrown for a refusal the operator can fix; main prints the message and exits 1. */
export class CliRefusal extends Error {
  override name = 'CliRefusal';
}

/** Opens the configured accounts database (no Redis: the CLI counts no requests), runs `fn`, closes. */
export async function withAccounts(fn: (services: AccountServices) => Promise<number>): Promise<number> {
  const services = await openAccountServices(loadConfig(), { redis: false });
  try {
    return await fn(services);
  } catch (error) {
    if (!(error instanceof CliRefusal)) throw error;
    console.error(`shutter: ${error.message}`);
    return 1;
  } finally {
    await services.close();
  }
}

/** The account of `--email`, or the operator's when no address is given. */
export async function accountFor(services: AccountServices, email: string | undefined): Promise<Account> {
  if (email === undefined) return services.accounts.ensureOperator();
  const account = await services.accounts.findByEmail(email);
  if (!account) throw new CliRefusal(`no account ${email} (see: shutter accounts list)`);
  return account;
}

/** The plan name if it exists, else a refusal listing the plans there are. */
export function planNamed(services: AccountServices, name: string): string {
  if (!services.plans.get(name)) {
    throw new CliRefusal(
      `no plan ${name}; plans: ${services.plans
        .all()
        .map((p) => p.name)
        .join(', ')}`,
    );
  }
  return name;
}
