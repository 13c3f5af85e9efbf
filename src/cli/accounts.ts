import { ACCOUNT_ROLES, type AccountRole } from '../accounts/account-store.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../accounts/password.js';
import { parseCommandLine, UsageError } from './args.js';
import { accountFor, CliRefusal, planNamed, withAccounts } from './cli-accounts.js';

const USAGE = `usage: shutter accounts create --email E [--plan P] [--name N]
                                                      create an account and its first key (alone on the last line)
       shutter accounts list                          one account per line, its id first
       shutter accounts set-plan --email E --plan P   move an account to another plan
       shutter accounts set-password --email E        read a dashboard password from standard input
       shutter accounts set-role --email E --role R   operator (may open /dashboard/admin) or user`;

/** `shutter accounts create|list|set-plan|set-password|set-role`: operator account management. */
export async function accounts(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  let options;
  try {
    if (!['create', 'list', 'set-plan', 'set-password', 'set-role'].includes(command ?? '')) {
      throw new UsageError(`unknown command accounts ${command ?? ''}`);
    }
    ({ values: options } = parseCommandLine(rest, {
      email: { type: 'string', short: 'e' },
      plan: { type: 'string', short: 'p' },
      name: { type: 'string', short: 'n' },
      role: { type: 'string', short: 'r' },
    }));
    if (command !== 'list' && !options.email) throw new UsageError(`accounts ${command} needs --email`);
    if (command === 'set-plan' && !options.plan) throw new UsageError('accounts set-plan needs --plan');
    if (command === 'set-role' && !ACCOUNT_ROLES.includes(options.role as AccountRole)) {
      throw new UsageError(`accounts set-role needs --role ${ACCOUNT_ROLES.join(' or ')}`);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`shutter: ${error.message}\n${USAGE}`);
    return 2;
  }
  return withAccounts(async (services) => {
    switch (command) {
      case 'create': {
        const plan = planNamed(services, options.plan ?? 'free');
        const created = await services.accounts.create({ email: options.email!, plan });
        if (!created.ok) throw new CliRefusal(created.message);
        const account = created.value;
        const issued = await services.keyManager.issue(account, options.name ?? 'default');
        if (!issued.ok) throw new CliRefusal(issued.message);
        console.error(
          `created account ${account.id} (${account.email}, plan ${plan}) and key ${issued.value.record.id}; the key is shown only this once`,
        );
        console.log(issued.value.key);
        return 0;
      }
      case 'set-password': {
        const account = await accountFor(services, options.email);
        // From standard input, never from argv: arguments show in `ps` and shell history.
        const password = (await readStdin()).replace(/\r?\n$/, '');
        if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
          throw new CliRefusal(`the password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
        }
        await services.accounts.setPasswordHash(account.id, await hashPassword(password));
        console.error(`${account.email} can now log in at /dashboard`);
        return 0;
      }
      case 'set-role': {
        const account = await accountFor(services, options.email);
        const role = options.role as AccountRole;
        // Logged in the admin's audit log, with the command line as the actor.
        const changed = await services.admin.setRole(null, account.id, role);
        if (!changed.ok) throw new CliRefusal(changed.message);
        console.error(
          changed.value.changed ? `${account.email}: role ${account.role} → ${role}` : `${account.email} has the role ${role} already`,
        );
        if (role === 'operator' && !account.canLogIn) {
          console.error(`note: ${account.email} has no password yet; set one with: shutter accounts set-password --email ${account.email}`);
        }
        return 0;
      }
      case 'list':
        for (const a of await services.accounts.list()) {
          const flags = [...(a.role === 'operator' ? ['operator'] : []), ...(a.disabledAt ? [`disabled ${a.disabledAt}`] : [])];
          console.log(
            [a.id, a.email, a.plan, `${a.activeKeys} active key${a.activeKeys === 1 ? '' : 's'}`, a.createdAt, ...flags].join('  '),
          );
        }
        return 0;
      default: {
        const plan = planNamed(services, options.plan!);
        const account = await accountFor(services, options.email);
        await services.accounts.setPlan(account.id, plan);
        const keys = await services.keys.countActive(account.id);
        const max = services.plans.resolve(plan).maxKeys;
        console.error(`${account.email}: plan ${account.plan} → ${plan}`);
        // Existing keys keep working; the limit only stops new ones.
        if (keys > max)
          console.error(
            `note: the account holds ${keys} active keys, more than the ${max} of plan ${plan}; no new key until some are revoked`,
          );
        return 0;
      }
    }
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
