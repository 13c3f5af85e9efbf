import type { ApiKeyRecord } from './key-store.js';
import type { AccountServices } from './services.js';

/**
 * Makes sure the operator account (plan scale) exists and owns SHUTTER_BOOTSTRAP_KEY. A key that
 * exists already is left as it is: a revoked bootstrap key stays revoked.
 */
export async function ensureBootstrapKey(services: AccountServices, key: string): Promise<ApiKeyRecord> {
  const operator = await services.accounts.ensureOperator();
  return services.keys.ensure({ name: 'bootstrap', key, accountId: operator.id });
}
